package linter

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// The line reader yields the same lines whether a line fits in the reader's
// buffer (returned from it) or not (gathered), with "\r\n", blank lines, a BOM on
// the first line, a last line without "\n", and a line over MaxMessage (skipped).
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 300<<10) // longer than the 256 KiB buffer
	huge := strings.Repeat("y", MaxMessage+2)
	in := "\xEF\xBB\xBF{\"a\":1}\r\n\n  \r\n" + long + "\r\n" + huge + "\n{\"b\":2}\n" + long + "x\n{\"c\":3}"
	type got struct {
		line string
		n    int
	}
	want := []got{{`{"a":1}`, 1}, {long, 4}, {`{"b":2}`, 6}, {long + "x", 7}, {`{"c":3}`, 8}}
	s := newStream("t", Options{})
	lr := &lineReader{br: bufio.NewReaderSize(strings.NewReader(in), 256*1024), s: s}
	var out []got
	for {
		line, n, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got{string(line), n})
	}
	if !reflect.DeepEqual(out, want) {
		for i := range out {
			t.Logf("line %d: %d bytes %.20q", out[i].n, len(out[i].line), out[i].line)
		}
		t.Fatalf("lines differ (want %d lines)", len(want))
	}
	if len(s.diags) != 1 || s.diags[0].Line != 5 || !strings.Contains(s.diags[0].Message, "line 5 is longer than") {
		t.Fatalf("want one GEN-SIZE-001 at line 5, got %+v", s.diags)
	}
}
