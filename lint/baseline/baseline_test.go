package baseline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/lint"
)

func TestFingerprintIgnoresNumbers(t *testing.T) {
	a := Fingerprint("R-X-001", "duplicate id \"t-1\" (first at line 12)")
	if b := Fingerprint("R-X-001", "duplicate id \"t-1\" (first at line 40)"); a != b {
		t.Error("a moved line number changed the fingerprint")
	}
	if b := Fingerprint("R-X-001", "duplicate id \"t-1\" (first at Line 7:3)"); a != b {
		t.Error("a moved line:column changed the fingerprint")
	}
	if b := Fingerprint("R-X-001", "duplicate id \"t-2\" (first at line 12)"); a == b {
		t.Error("another id kept the fingerprint")
	}
	if b := Fingerprint("R-X-002", "duplicate id \"t-1\" (first at line 12)"); a == b {
		t.Error("another rule kept the fingerprint")
	}
}

func TestWriteFilterStale(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "base.json")
	msgs := filepath.Join(dir, "msgs")
	a, b := filepath.Join(msgs, "a.json"), filepath.Join(msgs, "b.json")
	d := func(rule, ptr, msg string, line int) lint.Diagnostic {
		return lint.Diagnostic{Rule: rule, Pointer: ptr, Message: msg, Line: line, Severity: lint.Error}
	}
	n, err := Write(file, []File{
		{Path: b, Diagnostics: []lint.Diagnostic{d("R-X-001", "/a", "bad a", 3)}},
		{Path: a, Diagnostics: []lint.Diagnostic{d("R-X-001", "/a", "bad a", 3), d("R-X-001", "/a", "bad a", 9), d("R-Y-001", "", "late", 1)}},
	})
	if err != nil || n != 4 {
		t.Fatalf("Write: %d %v", n, err)
	}
	data, _ := os.ReadFile(file)
	if strings.Count(string(data), "\n") != 9 || !strings.Contains(string(data), `"path":"msgs/a.json"`) || strings.Contains(string(data), `"line"`) {
		t.Errorf("one entry per line, relative paths, no line numbers:\n%s", data)
	}
	base, err := Load(file)
	if err != nil || len(base.Entries) != 4 || base.Entries[0].Line != 4 {
		t.Fatalf("Load: %+v %v", base, err)
	}
	// Same findings at other lines: all known. Each entry matches one finding.
	got := base.Filter(a, []lint.Diagnostic{d("R-X-001", "/a", "bad a", 30), d("R-X-001", "/a", "bad a", 31), d("R-X-001", "/a", "bad a", 32)})
	if len(got) != 1 {
		t.Errorf("a third identical finding is new: %+v", got)
	}
	// b.json was not linted and exists: its entry is not judged; R-Y-001 is stale.
	if err := os.MkdirAll(msgs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(b, []byte("{}"), 0o644)
	st := base.Stale([]string{a})
	if len(st) != 1 || !strings.Contains(st[0].Message, "R-Y-001 msgs/a.json no longer occurs") || st[0].Path != file || st[0].Line != 6 {
		t.Errorf("stale: %+v", st)
	}
	// A deleted file's entries are stale even when it was not linted.
	os.Remove(b)
	if st := base.Stale([]string{a}); len(st) != 2 {
		t.Errorf("stale with b.json gone: %+v", st)
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "nope",
		"no format":     `{"findings":[]}`,
		"future format": `{"aoplint-baseline":2,"findings":[]}`,
		"bad findings":  `{"aoplint-baseline":1,"findings":{}}`,
		"entry no rule": `{"aoplint-baseline":1,"findings":[{"path":"a","fingerprint":"x"}]}`,
		"entry not obj": `{"aoplint-baseline":1,"findings":[1]}`,
	} {
		if _, err := Parse("b.json", []byte(in)); err == nil || !strings.HasPrefix(err.Error(), "b.json") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzParse: a baseline file never makes Parse panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"aoplint-baseline":1,"findings":[{"path":"a","rule":"R-X-001","pointer":"/a","fingerprint":"00","message":"m"}]}`))
	f.Add([]byte(`{"aoplint-baseline":1,"findings":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse("b.json", data)
		if (b == nil) == (err == nil) {
			t.Fatalf("Parse returned %v and %v", b, err)
		}
	})
}

// A baseline round-trips whatever it was written from: 50,000 findings (more
// values than one protocol message may hold) are read back, each at its line.
func TestRoundTripLarge(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine, large baselines: run without -race (race_test.go)")
	}
	file := filepath.Join(t.TempDir(), "base.json")
	var files []File
	for f := 0; f < 5; f++ {
		var ds []lint.Diagnostic
		for i := 0; i < 10000; i++ {
			ds = append(ds, lint.Diagnostic{Rule: "R-X-001", Pointer: fmt.Sprintf("/a/%d", i), Message: "bad", Severity: lint.Error})
		}
		files = append(files, File{Path: filepath.Join(filepath.Dir(file), fmt.Sprintf("f%d.jsonl", f)), Diagnostics: ds})
	}
	n, err := Write(file, files)
	if err != nil || n != 50000 {
		t.Fatalf("Write: %d %v", n, err)
	}
	b, err := Load(file)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(b.Entries) != 50000 || b.Entries[0].Line != 4 || b.Entries[49999].Line != 50003 {
		t.Fatalf("%d entries, first at line %d, last at %d", len(b.Entries), b.Entries[0].Line, b.Entries[len(b.Entries)-1].Line)
	}
	for _, f := range files {
		if left := b.Filter(f.Path, f.Diagnostics); len(left) != 0 {
			t.Fatalf("%s: %d findings not matched", f.Path, len(left))
		}
	}
}

// Write refuses a baseline Load would refuse, and writes nothing.
func TestWriteRefusesWhatLoadRefuses(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine, large baselines: run without -race (race_test.go)")
	}
	file := filepath.Join(t.TempDir(), "base.json")
	// Each byte of the message is written as \u0001, six bytes: a file over
	// MaxFile from a sixth of the message bytes to fingerprint and encode.
	long := strings.Repeat("\x01", 1<<20)
	var ds []lint.Diagnostic
	for i := 0; i < MaxFile>>20/6+1; i++ {
		ds = append(ds, lint.Diagnostic{Rule: "R-X-001", Pointer: fmt.Sprintf("/%d", i), Message: long})
	}
	_, err := Write(file, []File{{Path: "a.json", Diagnostics: ds}})
	if err == nil || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("Write: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a refused baseline was written: %v", err)
	}
}

// A baseline file that is a FIFO or a link to /dev/zero is refused at once; a
// baseline is never written through a symbolic link.
func TestBaselineFileTraps(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		done := make(chan error, 1)
		go func() { _, err := Load(p); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Load(%s): %v", p, err)
			}
		case <-testdeadline.Near(t):
			t.Fatalf("Load(%s) hangs", p)
		}
	}
	target := filepath.Join(dir, "elsewhere.json")
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink(target, dangling); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dangling, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Write through a dangling link: %v", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("the link's target was written")
	}
}
