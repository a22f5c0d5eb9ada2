package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/internal/testdeadline"
)

func TestReadFileRefusesTraps(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2000), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
		msg  string
	}{
		{fifo, ErrNotRegular, "named pipe"},
		{zero, ErrNotRegular, "character device"},
		{dir, ErrNotRegular, "directory"},
		{big, ErrTooLarge, "larger than 1000 bytes"},
	} {
		done := make(chan struct{})
		var err error
		go func() { _, err = ReadFile(c.path, 1000); close(done) }()
		select {
		case <-done:
		case <-testdeadline.Near(t):
			t.Fatalf("%s: ReadFile blocked", c.path)
		}
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err %v, want %v (%q)", c.path, err, c.want, c.msg)
		}
	}
	b, err := ReadFile(big, 2000)
	if err != nil || len(b) != 2000 {
		t.Errorf("a file at its cap: %d bytes, %v", len(b), err)
	}
}

// A file that grows after the open is cut at the cap with an error, never read on.
func TestReadStopsAtCapWhileGrowing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("abc"), 0o600)
	f, err := Open(p, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.WriteFile(p, make([]byte, 100), 0o600)
	buf := make([]byte, 1000)
	total := 0
	for {
		n, err := f.Read(buf)
		total += n
		if err != nil {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err %v", err)
			}
			break
		}
	}
	if total > 10 {
		t.Errorf("read %d bytes past a cap of 10", total)
	}
}

func TestInside(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "secret"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(root, "in"), []byte("x"), 0o600)
	os.Symlink(filepath.Join(out, "secret"), filepath.Join(root, "leak"))
	os.Symlink("in", filepath.Join(root, "alias"))
	if err := Inside(root, filepath.Join(root, "alias")); err != nil {
		t.Errorf("link inside: %v", err)
	}
	if err := Inside(root, filepath.Join(root, "leak")); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("link outside: %v", err)
	}
	if _, err := ReadFileIn(root, filepath.Join(root, "leak"), 100); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("ReadFileIn outside: %v", err)
	}
}

func TestWriteFileRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(target, dangling)
	if err := WriteFile(dangling, []byte("x"), 0o644, false); err == nil {
		t.Error("wrote through a dangling symlink")
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the link's target was created")
	}
	p := filepath.Join(dir, "p")
	if err := WriteFile(p, []byte("1"), 0o644, true); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("2"), 0o644, true); !errors.Is(err, os.ErrExist) {
		t.Errorf("noClobber over an existing file: %v", err)
	}
	if err := WriteFile(p, []byte("3"), 0o644, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "3" {
		t.Errorf("content %q", b)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func FuzzReadFileCap(f *testing.F) {
	f.Add(10, 5)
	f.Fuzz(func(t *testing.T, size, max int) {
		if size < 0 || size > 1<<16 || max <= 0 || max > 1<<16 {
			return
		}
		p := filepath.Join(t.TempDir(), "f")
		os.WriteFile(p, make([]byte, size), 0o600)
		b, err := ReadFile(p, int64(max))
		if size > max {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("size %d max %d: %v", size, max, err)
			}
		} else if err != nil || len(b) != size {
			t.Fatalf("size %d max %d: %d %v", size, max, len(b), err)
		}
	})
}

// OpenAppend never waits on a FIFO nor appends through a link; Replace replaces
// a link or a FIFO at the path instead of writing through it.
func TestOpenAppendAndReplace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	for _, p := range []string{fifo, link} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenAppend(p, 0o644)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenAppend(%s): %v", p, err)
			}
		case <-testdeadline.Near(t):
			t.Fatalf("OpenAppend(%s) blocks", p)
		}
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("OpenAppend created the link's target")
	}
	log := filepath.Join(dir, "log")
	for i := 0; i < 2; i++ {
		f, err := OpenAppend(log, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("x")
		f.Close()
	}
	if b, _ := os.ReadFile(log); string(b) != "xx" {
		t.Errorf("appended %q", b)
	}
	for _, p := range []string{fifo, link} {
		if err := Replace(p, []byte("new"), 0o644); err != nil {
			t.Fatalf("Replace(%s): %v", p, err)
		}
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
			t.Errorf("Replace(%s) left %v %v", p, st.Mode(), err)
		}
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("Replace wrote through the link")
	}
}

// A path that does not exist yet is outside when an existing directory on its
// way is a link leading out (MkdirAll there would create directories outside).
func TestInsideNotYetExisting(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	os.Symlink(out, filepath.Join(root, "away"))
	os.Mkdir(filepath.Join(root, "here"), 0o755)
	if err := Inside(root, filepath.Join(root, "away", "new", "f")); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("under a link out: %v", err)
	}
	if err := Inside(root, filepath.Join(root, "here", "new", "f")); err != nil {
		t.Errorf("under a directory inside: %v", err)
	}
	if err := Inside(root, filepath.Join(root, "dangling")); err != nil {
		t.Errorf("a new name in root: %v", err)
	}
}
