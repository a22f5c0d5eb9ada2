package aoplintcmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
)

// runGuarded runs aoplint with args, failing the test if it never ends (a hang
// detector with a generous limit, not a speed assertion).
func runGuarded(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(append([]string{"aoplint"}, args...), strings.NewReader(""), &out, &errb) }()
	select {
	case code = <-done:
	case <-testdeadline.Near(t):
		t.Fatalf("aoplint %q hangs", args)
	}
	return code, out.String(), errb.String()
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

const aop2Task = `{"aop_version":"2.0","type":"TASK","id":"t-1"}`

// A configuration, a baseline, a glob match or a named file that is a FIFO or a
// link to /dev/zero is refused with a message naming it, exit 2: never a hang,
// never a read without end.
func TestFileTraps(t *testing.T) {
	dir := t.TempDir()
	fifo, zero := filepath.Join(dir, "fifo.yaml"), filepath.Join(dir, "zero.yaml")
	mkfifo(t, fifo)
	symlink(t, "/dev/zero", zero)
	msgs := filepath.Join(dir, "msgs")
	os.Mkdir(msgs, 0o755)
	os.WriteFile(filepath.Join(msgs, "a.json"), []byte(aop2Task), 0o644)
	mkfifo(t, filepath.Join(msgs, "b.json"))
	symlink(t, "/dev/zero", filepath.Join(msgs, "c.json"))
	good := filepath.Join(msgs, "a.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", fifo, good}, "fifo.yaml: not a regular file (a named pipe): refused"},
		{[]string{"--config", zero, good}, "zero.yaml: not a regular file (a character device): refused"},
		{[]string{"--no-config", "--baseline", fifo, good}, "fifo.yaml: not a regular file (a named pipe): refused"},
		{[]string{"--no-config", "--baseline", zero, good}, "zero.yaml: not a regular file (a character device): refused"},
		{[]string{"--no-config", filepath.Join(msgs, "b.json")}, "b.json: not a regular file (a named pipe): refused"},
		{[]string{"--no-config", filepath.Join(msgs, "*.json")}, "b.json: not a regular file (a named pipe): refused"},
		{[]string{"--no-config", filepath.Join(msgs, "*.json")}, "c.json: not linted: symbolic link leads outside the root"},
		{[]string{"--no-config", filepath.Join(msgs, "c.json")}, "c.json: not a regular file (a character device): refused"},
	} {
		code, _, stderr := runGuarded(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("aoplint %q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// A directory walk follows a symbolic link that stays inside the directory
// walked and lints a file reached twice once; a link leading outside is an error
// on stderr and exit 2, never a silent "nothing to lint".
func TestWalkSymlinks(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "bad.json"), []byte(`{"aop_version":"2.0"}`), 0o644)
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "real"), 0o755)
	os.WriteFile(filepath.Join(root, "real", "a.json"), []byte(aop2Task), 0o644)
	symlink(t, "real", filepath.Join(root, "linkdir"))
	symlink(t, filepath.Join("real", "a.json"), filepath.Join(root, "same.json"))
	os.Mkdir(filepath.Join(root, ".store"), 0o755) // hidden: not walked
	os.WriteFile(filepath.Join(root, ".store", "b.json"), []byte(aop2Task), 0o644)
	symlink(t, filepath.Join(".store", "b.json"), filepath.Join(root, "b.json"))

	code, stdout, stderr := runGuarded(t, "--no-config", "-f", "json", root)
	if code == exitUsage || strings.Count(stdout, `"path"`) != 2 || !strings.Contains(stdout, filepath.Join(root, "real", "a.json")) || !strings.Contains(stdout, filepath.Join(root, "b.json")) {
		t.Errorf("links inside the root: exit %d, stderr %q, want real/a.json linted once and b.json:\n%s", code, stderr, stdout)
	}

	// A directory named through a link is walked (it was "nothing to lint").
	code, stdout, stderr = runGuarded(t, "--no-config", "-f", "json", filepath.Join(root, "linkdir"))
	if code != exitFindings || !strings.Contains(stdout, filepath.Join(root, "linkdir", "a.json")) {
		t.Errorf("a directory named through a link: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}

	symlink(t, filepath.Join(outside, "bad.json"), filepath.Join(root, "out.json"))
	symlink(t, outside, filepath.Join(root, "outdir"))
	mkfifo(t, filepath.Join(root, "real", "f.json"))
	code, _, stderr = runGuarded(t, "--no-config", "-v", root)
	if want := "not read " + filepath.Join(root, "real", "f.json") + ": not a regular file (a named pipe)"; !strings.Contains(stderr, want) {
		t.Errorf("a FIFO met in a walk: stderr %q, want %q with -v", stderr, want)
	}
	for _, name := range []string{"out.json", "outdir"} {
		want := fmt.Sprintf("%s: not linted: symbolic link leads outside the root", filepath.Join(root, name))
		if !strings.Contains(stderr, want) {
			t.Errorf("link outside the root: stderr %q, want %q", stderr, want)
		}
	}
	if code != exitUsage {
		t.Errorf("links outside the root: exit %d, want 2", code)
	}

	// Links the configuration leaves out are not judged.
	cfg := filepath.Join(root, ".aoplint.yaml")
	os.WriteFile(cfg, []byte("files:\n  exclude: [\"out.json\", \"outdir\"]\n"), 0o644)
	code, _, stderr = runGuarded(t, "--config", cfg, root)
	if code == exitUsage || strings.Contains(stderr, "leads outside") {
		t.Errorf("links files.exclude leaves out: exit %d, stderr %q", code, stderr)
	}
}

// config init never writes through a .aoplint.yaml that is a symbolic link,
// dangling or not, even with --force.
func TestConfigInitRefusesLink(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	target := filepath.Join(dir, "elsewhere.yaml")
	symlink(t, target, ".aoplint.yaml")
	for _, args := range [][]string{{"config", "init"}, {"config", "init", "--force"}} {
		code, stdout, stderr := runGuarded(t, args...)
		if code != exitUsage || strings.Contains(stdout, "wrote") {
			t.Errorf("aoplint %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
		if _, err := os.Lstat(target); !os.IsNotExist(err) {
			t.Fatalf("aoplint %q wrote through the link", args)
		}
	}
	os.Remove(".aoplint.yaml")
	if code, _, stderr := runGuarded(t, "config", "init"); code != 0 {
		t.Fatalf("config init: exit %d, %s", code, stderr)
	}
}

// --baseline-write never writes through a symbolic link and never says it wrote
// a baseline it did not write.
func TestBaselineWriteRefusesLink(t *testing.T) {
	dir := t.TempDir()
	msg := filepath.Join(dir, "a.json")
	os.WriteFile(msg, []byte(`{"aop_version":"2.0"}`), 0o644)
	target, link := filepath.Join(dir, "elsewhere.json"), filepath.Join(dir, "base.json")
	symlink(t, target, link)
	code, _, stderr := runGuarded(t, "--no-config", "--baseline-write", link, msg)
	if code != exitUsage || strings.Contains(stderr, "written to") || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Error("the baseline was written through the link")
	}
}

// A baseline round-trips whatever it was written from: an input with more
// findings than an input keeps makes --baseline-write refuse, saying why, and
// write nothing; 30,000 findings over three files are written and read back, and
// the run with the baseline is clean.
func TestBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	line := `{"aop_version":"2.0","type":"TASK","id":"t-%d","payload":7}` + "\n"
	var b strings.Builder
	for i := 0; i < 12000; i++ {
		fmt.Fprintf(&b, line, i)
	}
	big := filepath.Join(dir, "big.jsonl")
	os.WriteFile(big, []byte(b.String()), 0o644)
	base := filepath.Join(dir, "base.json")
	code, _, stderr := runGuarded(t, "--no-config", "-f", "jsonl", "--baseline-write", base, big)
	if code != exitUsage || !strings.Contains(stderr, "baseline not written") || !strings.Contains(stderr, "big.jsonl") || strings.Contains(stderr, "written to") {
		t.Errorf("--baseline-write over the per-input limit: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Error("a baseline was written")
	}

	var files []string
	for f := 0; f < 3; f++ {
		var b strings.Builder
		for i := 0; i < 9000; i++ {
			fmt.Fprintf(&b, line, i)
		}
		p := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", f))
		os.WriteFile(p, []byte(b.String()), 0o644)
		files = append(files, p)
	}
	code, _, stderr = runGuarded(t, append([]string{"--no-config", "-f", "jsonl", "--baseline-write", base}, files...)...)
	if code != 0 || !strings.Contains(stderr, "written to") {
		t.Fatalf("--baseline-write: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runGuarded(t, append([]string{"--no-config", "--baseline", base}, files...)...)
	if code != 0 || strings.TrimSpace(stdout) != "" {
		t.Errorf("with the baseline: exit %d, stderr %q, stdout %.300q", code, stderr, stdout)
	}
}
