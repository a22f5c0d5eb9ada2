// Package enginetest holds what the engines' tests share: building mockagent for
// real-process runs, golden transcripts, and driving a fake clock to the end of a
// run inside a synctest bubble.
package enginetest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
)

// BuildMockagent builds cmd/mockagent into a temporary directory and returns its
// path. With -short it skips the test: building takes seconds.
func BuildMockagent(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/mockagent")
	}
	bin := filepath.Join(t.TempDir(), "mockagent")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/aopkit/aopkit/cmd/mockagent").CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/mockagent: %v\n%s", err, out)
	}
	return bin
}

// Golden compares got with the golden file at path, naming the first line that
// differs; with update it rewrites the file instead.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s differs from the golden file at line %d (go test -update rewrites it):\n got: %s\nwant: %s", path, i+1, g, w)
			return
		}
	}
}

// Drive runs fn in a goroutine and, each time everything in the synctest bubble is
// blocked, moves the fake clock on by step, until fn returns. It must be called
// inside synctest.Test; it fails the test after maxSteps steps.
func Drive(t testing.TB, fake *clock.Fake, step time.Duration, maxSteps int, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	for steps := 0; ; steps++ {
		synctest.Wait()
		select {
		case <-done:
			return
		default:
		}
		if steps > maxSteps {
			t.Fatalf("the run did not end after %s of fake time", time.Duration(steps)*step)
		}
		fake.Advance(step)
	}
}
