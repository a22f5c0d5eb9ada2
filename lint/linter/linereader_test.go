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

// TestMarkedLines: a stream keeps the lines holding Options.Marker as an object
// key (or that are not JSON and hold it), with their numbers (blank lines
// count), serial and parallel, long lines, records and nested objects included;
// a JSON line with the marker only as a value or in a record's text is not kept.
// A line too long to keep, or a BOM, loses them all (nil: the caller reads the
// file again).
func TestMarkedLines(t *testing.T) {
	long := `{"k":"` + strings.Repeat("x", 300<<10) + `","p":{"MARK":1}}`
	rec := `{"aopkit":"transcript/1","seq":1,"at":"2026-01-01T00:00:00Z","from":"agent","session":"s","msg":{"a":{"MARK":2}}}`
	text := `{"aopkit":"transcript/1","seq":2,"at":"2026-01-01T00:00:01Z","from":"agent","session":"s","text":"{\"MARK\":3}"}`
	in := "{\"a\":1}\n\n{\"MARK\":\"v\"}\r\n" + long + "\n{\"b\":\"MARK\"}\n" + rec + "\n" + text + "\nnot json MARK\n{\"c\":[{\"MARK\":0}]}"
	want := []MarkedLine{{3, []byte("{\"MARK\":\"v\"}")}, {4, []byte(long)}, {6, []byte(rec)}, {8, []byte("not json MARK")}, {9, []byte(`{"c":[{"MARK":0}]}`)}}
	for _, workers := range []int{1, 2} {
		res, err := LintStream("t", strings.NewReader(in), Options{Workers: workers, Marker: "MARK"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Marked == nil || len(res.Marked.Lines) != len(want) {
			t.Fatalf("workers %d: marked %+v, want %d lines", workers, res.Marked, len(want))
		}
		for i, l := range res.Marked.Lines {
			if l.Line != want[i].Line || strings.TrimRight(string(l.Text), "\r\n") != strings.TrimRight(string(want[i].Text), "\r\n") {
				t.Errorf("workers %d: marked line %d is %d %.30q, want %d %.30q", workers, i, l.Line, l.Text, want[i].Line, want[i].Text)
			}
		}
		res, _ = LintStream("t", strings.NewReader(in), Options{Workers: workers})
		if res.Marked != nil {
			t.Errorf("workers %d: lines marked without a marker", workers)
		}
		huge := in + "\n" + strings.Repeat("y", MaxMessage+2) + "\n"
		res, _ = LintStream("t", strings.NewReader(huge), Options{Workers: workers, Marker: "MARK"})
		if res.Marked != nil {
			t.Errorf("workers %d: a line too long to keep, yet %d lines marked", workers, len(res.Marked.Lines))
		}
		res, _ = LintStream("t", strings.NewReader("\xEF\xBB\xBF"+in), Options{Workers: workers, Marker: "MARK"})
		if res.Marked != nil {
			t.Errorf("workers %d: a BOM, yet %d lines marked", workers, len(res.Marked.Lines))
		}
	}
}
