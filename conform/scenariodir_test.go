package conform

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
)

// A --scenarios directory whose *.json is a FIFO, a link to /dev/zero or a link
// leading out of the directory is an error naming the file: never a hang, never
// a read without end.
func TestLoadScenarioDirTraps(t *testing.T) {
	for name, want := range map[string]string{
		"fifo": "not a regular file (a named pipe)",
		"zero": "symbolic link leads outside the root",
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "s.json")
		var err error
		if name == "fifo" {
			err = syscall.Mkfifo(p, 0o600)
		} else {
			err = os.Symlink("/dev/zero", p)
		}
		if err != nil {
			t.Skip("cannot make the trap:", err)
		}
		done := make(chan error, 1)
		go func() { _, err := LoadScenarioDir(dir); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "s.json") {
				t.Errorf("%s: %v, want %q", name, err, want)
			}
		case <-testdeadline.Near(t):
			t.Fatalf("%s: LoadScenarioDir hangs", name)
		}
	}
}
