package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aopkit/aopkit/internal/testdeadline"
)

// signalWriter records what is written and closes seen once it holds want.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// gatedReader is standard input that only opens once gate closes (or near the
// test binary's deadline, so that a broken build fails instead of hanging).
type gatedReader struct {
	gate     <-chan struct{}
	fallback <-chan time.Time
	r        io.Reader
	opened   bool // whether the gate opened (not the fallback)
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if g.r == nil {
		select {
		case <-g.gate:
			g.opened = true
		case <-g.fallback:
		}
		g.r = strings.NewReader(`{"not":"a message"}`)
	}
	return g.r.Read(p)
}

// Results are printed per file as they come (issue 13.10): the findings of the
// first file are out while a later input (standard input here) is still being read.
func TestResultsStreamPerFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "a.json") // sorts before "<stdin>"
	if err := os.WriteFile(bad, []byte(`{"oops":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "jsonl", "github"} {
		t.Run(format, func(t *testing.T) {
			out := &signalWriter{want: "a.json", seen: make(chan struct{})}
			in := &gatedReader{gate: out.seen, fallback: testdeadline.Near(t)}
			code := run([]string{"aoplint", "--format", format, "-j", "2", bad, "-"}, in, out, io.Discard)
			if code != 1 {
				t.Errorf("exit %d, want %d", code, 1)
			}
			if !in.opened {
				t.Fatalf("the first file's results were not printed before standard input was read; output:\n%s", out.buf.String())
			}
			if !strings.Contains(out.buf.String(), "<stdin>") {
				t.Errorf("no result for standard input:\n%s", out.buf.String())
			}
		})
	}
}

// The jsonl format: one line per file, then the summary.
func TestJSONLFormat(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.json", "a.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(`{"oops":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	// Named, not walked: a walk skips files without a protocol marker.
	code := run([]string{"aoplint", "-f", "jsonl", filepath.Join(dir, "b.json"), filepath.Join(dir, "a.json")}, strings.NewReader(""), &out, io.Discard)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got:\n%s", out.String())
	}
	var f struct {
		Path        string            `json:"path"`
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	for i, want := range []string{"a.json", "b.json"} {
		if err := json.Unmarshal([]byte(lines[i]), &f); err != nil || filepath.Base(f.Path) != want || len(f.Diagnostics) == 0 {
			t.Errorf("line %d: %v %+v", i, err, f)
		}
	}
	var s struct {
		Summary struct{ Files, Errors int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &s); err != nil || s.Summary.Files != 2 || s.Summary.Errors == 0 {
		t.Errorf("summary %v %+v", err, s)
	}
}
