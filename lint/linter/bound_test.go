package linter

import (
	"bytes"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// The bytes read ahead of the ordered stage are bounded by the in-flight budget,
// not by a count of lines (issue 13.9: batches of 256 lines whatever their size
// held 256 × 15 MiB per worker).
func TestInflightBytesBounded(t *testing.T) {
	defer func(v int) { inflightBytes = v }(inflightBytes)
	inflightBytes = 64 << 10
	line := `{"toy":"ping","pad":"` + strings.Repeat("x", 4000) + `"}` + "\n"
	in := strings.Repeat(line, 1200) // 4.8 MB
	cr := &countingReader{r: strings.NewReader(in)}
	var applied, ahead int64
	testHookApplied = func(n, lines int) {
		applied += int64(n + lines) // the lines' newlines
		if a := cr.n.Load() - applied; a > ahead {
			ahead = a
		}
	}
	defer func() { testHookApplied = nil }()
	res, err := LintStream("s.jsonl", cr, Options{Workers: 2})
	if err != nil || res.Messages != 1200 {
		t.Fatalf("messages %d, err %v", res.Messages, err)
	}
	// The budget, the line reader's buffer (256 KiB), one line being read and the
	// batch that did not fit.
	bound := int64(inflightBytes + 256<<10 + 2*len(line))
	if ahead > bound {
		t.Errorf("read %d bytes ahead of the ordered stage; the bound is %d", ahead, bound)
	}
}

// One message costs at most jsonread.MaxValues values: a small file of many tiny
// values is refused with GEN-SIZE-001 instead of a tree 75 times its size.
func TestValuesPerMessageBounded(t *testing.T) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i <= jsonread.MaxValues; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0')
	}
	b.WriteByte(']')
	res := LintBytes("many.json", b.Bytes(), Options{})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Rule != "GEN-SIZE-001" {
		t.Fatalf("want one GEN-SIZE-001, got:\n%s", diagString(res))
	}
	// The same as a line of a stream, beside a good line.
	stream := append(b.Bytes(), "\n{\"toy\":\"ping\",\"n\":1}\n"...)
	res, err := LintStream("many.jsonl", bytes.NewReader(stream), Options{Workers: 2})
	if err != nil || res.Messages != 2 || !strings.Contains(diagString(res), "GEN-SIZE-001") {
		t.Fatalf("stream: err %v, %d messages:\n%s", err, res.Messages, diagString(res))
	}
}

// Harness records held for protocols that start later are bounded in bytes.
func TestPendingHarnessBytesBounded(t *testing.T) {
	var b strings.Builder
	pad := strings.Repeat("y", 100<<10)
	for i := 0; i < 100; i++ { // 10 MB of harness events, one per session
		b.WriteString(`{"aopkit":"transcript/1","seq":` + itoa(i) + `,"at":"2026-01-01T00:00:00Z","from":"harness","session":"s` + itoa(i) + `","event":"note","pad":"` + pad + `"}` + "\n")
	}
	res, err := LintStream("t.jsonl", strings.NewReader(b.String()), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diagString(res), "GEN-SIZE-001") {
		t.Fatalf("no GEN-SIZE-001 for the held records:\n%s", diagString(res))
	}
}
