package certify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/internal/testdeadline"
)

// TestFileTraps (issue 33 item 4): keys and the files a certificate names are read
// as regular files under a cap: /dev/zero, a FIFO or a huge file is refused at
// once, never read without end or waited on.
func TestFileTraps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	huge := filepath.Join(dir, "huge.pem")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, safefile.MaxConfig+1); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", fifo, huge} {
		if _, err := LoadPublicKey(p); err == nil || !(errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge)) {
			t.Errorf("LoadPublicKey(%s): %v", p, err)
		}
		if _, err := LoadPrivateKey(p); err == nil || !(errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge)) {
			t.Errorf("LoadPrivateKey(%s): %v", p, err)
		}
	}
	// A certified report, and the executable given to check, replaced by a FIFO
	// and by /dev/zero: findings, at once.
	cdir, pub, cert, _ := fixture(t)
	if err := os.Remove(filepath.Join(cdir, "r.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(cdir, "r.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan *Verification, 1)
	go func() {
		v, _ := Verify(filepath.Join(cdir, "cert.json"), cert, pub, Options{Agents: []string{"/dev/zero"}})
		done <- v
	}()
	select {
	case v := <-done:
		f := findings(v)
		if v.OK() || !strings.Contains(f, "report r.json: cannot read it: ") || !strings.Contains(f, "not a regular file (a named pipe)") || !strings.Contains(f, "agent: cannot read it: /dev/zero: not a regular file") {
			t.Errorf("findings:\n%s", f)
		}
	case <-testdeadline.Near(t):
		t.Fatal("Verify blocked on a FIFO")
	}
}

// TestWriteNewNoLink: the certificate and key writer never writes through a
// symbolic link, dangling or not, nor over a file.
func TestWriteNewNoLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(target, dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(dangling, []byte("cert"), 0o644); err == nil {
		t.Error("wrote through a dangling link")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the link's target was created")
	}
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dangling, target} {
		if err := WriteNew(p, []byte("cert"), 0o644); err == nil {
			t.Errorf("%s overwritten", p)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("target now %q", b)
	}
}
