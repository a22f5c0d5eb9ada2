// Package safefile opens files named by someone else (a user's flag, a
// configuration, an agent's scratch directory, a directory being linted) without
// trusting them: only regular files are read (a FIFO, a device, a socket or a
// directory is refused before anything blocks on it), every read is bounded, and a
// symbolic link is followed only when its target stays inside a given root.
//
// Every file aopkit opens on someone else's say-so goes through this package.
package safefile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Size caps for the kinds of files aopkit reads. A file larger than its cap is
// refused with ErrTooLarge.
const (
	MaxConfig = 1 << 20   // .aoplint.yaml, --known-failing, scenario files, keys
	MaxSmall  = 4 << 20   // certificates, statements, agent-written state files
	MaxInput  = 256 << 20 // a message or transcript linted whole
)

// ErrNotRegular is returned for a path that is not a regular file (FIFO, device,
// socket, directory).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file over the caller's size cap.
var ErrTooLarge = errors.New("file too large")

// ErrOutsideRoot is returned for a symbolic link whose target leaves the root.
var ErrOutsideRoot = errors.New("symbolic link leads outside the root")

// Error tells which file was refused and why; errors.Is matches its Err.
type Error struct {
	Path string
	Err  error
	Mode fs.FileMode // the file's type, for ErrNotRegular
	Size int64       // the file's size, or the cap, for ErrTooLarge
	Max  int64
}

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrNotRegular):
		return fmt.Sprintf("%s: not a regular file (%s): refused", e.Path, kind(e.Mode))
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("%s: larger than %s: refused", e.Path, SizeText(e.Max))
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}

// SizeText says a byte count as people read caps: "4 MiB", "1 GiB", "1000 bytes".
func SizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// File is an open regular file whose reads stop at its cap: reading past the cap
// returns an *Error wrapping ErrTooLarge (never a silently cut file).
type File struct {
	*os.File
	max  int64
	read int64
	path string
}

// Open opens path for reading if it is a regular file. The open never blocks (a
// FIFO with no writer is refused, not waited on); max (> 0) caps what Read returns.
func Open(path string, max int64) (*File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	st, err := regular(f, path)
	if err != nil {
		return nil, err
	}
	if max > 0 && st.Size() > max {
		f.Close()
		return nil, &Error{Path: path, Err: ErrTooLarge, Size: st.Size(), Max: max}
	}
	return &File{File: f, max: max, path: path}, nil
}

// regular keeps f, opened with openFlags, only if it is a regular file (it is
// closed otherwise) and clears O_NONBLOCK, which regular files ignore anyway, so
// that nothing depends on it.
func regular(f *os.File, path string) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &Error{Path: path, Err: ErrNotRegular, Mode: st.Mode()}
	}
	if err == nil {
		err = clearNonblock(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return st, nil
}

// Read reads at most up to the cap; one byte past it is an error.
func (f *File) Read(p []byte) (int, error) {
	if f.max > 0 {
		if f.read > f.max {
			return 0, &Error{Path: f.path, Err: ErrTooLarge, Max: f.max}
		}
		if rest := f.max + 1 - f.read; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	n, err := f.File.Read(p)
	f.read += int64(n)
	if f.max > 0 && f.read > f.max {
		return n - int(f.read-f.max), &Error{Path: f.path, Err: ErrTooLarge, Max: f.max}
	}
	return n, err
}

// SHA256 is the hex SHA-256 of a regular file of at most max bytes (0: any
// size): a FIFO or a device is refused, never waited on or read without end.
func SHA256(path string, max int64) (string, error) {
	f, err := Open(path, max)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReadFile reads a whole regular file of at most max bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b strings.Builder
	if st, err := f.Stat(); err == nil && st.Size() > 0 && st.Size() <= max {
		b.Grow(int(st.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// ReadFileIn is ReadFile for a path that must stay inside root: a symbolic link
// anywhere on the way whose target leaves root is refused (ErrOutsideRoot). root
// and path are cleaned; path may be relative to the working directory, like root.
func ReadFileIn(root, path string, max int64) ([]byte, error) {
	if err := Inside(root, path); err != nil {
		return nil, err
	}
	return ReadFile(path, max)
}

// Inside reports (nil) whether path, with every symbolic link resolved, lies inside
// root (also resolved). A path that does not exist is judged by its deepest
// existing ancestor, resolved, and the rest of its lexical form (a directory to be
// created under a link that leads out is outside).
func Inside(root, path string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		r = root
	}
	r, _ = filepath.Abs(r)
	p, err := resolveExisting(path)
	if err != nil {
		return err
	}
	if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) || r == string(filepath.Separator) {
		return nil
	}
	return &Error{Path: path, Err: fmt.Errorf("%w (%s is outside %s)", ErrOutsideRoot, p, r)}
}

// resolveExisting is path, absolute, with the symbolic links of its deepest
// existing ancestor resolved.
func resolveExisting(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; {
		p, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(p, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// WriteFile writes data to path without following a symbolic link at path: the
// data goes to a temporary file in the same directory that then replaces path. A
// path that is a symbolic link (dangling or not), a directory or anything else but
// a regular file is refused. With noClobber an existing path is refused too.
func WriteFile(path string, data []byte, perm os.FileMode, noClobber bool) error {
	if st, err := os.Lstat(path); err == nil {
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return &Error{Path: path, Err: errors.New("is a symbolic link: refused (remove it, or name the file it points to)")}
		case !st.Mode().IsRegular():
			return &Error{Path: path, Err: ErrNotRegular, Mode: st.Mode()}
		case noClobber:
			return &Error{Path: path, Err: fs.ErrExist}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	name, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if noClobber {
		// Link fails if path appeared meanwhile: never replace what someone made.
		err = os.Link(name, path)
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// writeTemp writes data with perm to a new temporary file beside path and
// returns its name (nothing is left behind on error).
func writeTemp(path string, data []byte, perm os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// OpenAppend opens path for appending (creating it with perm if it does not
// exist) only if it is a regular file and not a symbolic link: a FIFO is not
// waited on, a device or a link planted in its place is refused (ErrNotRegular).
// For a log the harness keeps in a directory someone else can write to.
func OpenAppend(path string, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|openFlags|noFollow, perm)
	if err != nil {
		// A link (ELOOP) or a FIFO without a reader (ENXIO): say what it is.
		if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
			return nil, &Error{Path: path, Err: ErrNotRegular, Mode: st.Mode()}
		}
		return nil, err
	}
	if _, err := regular(f, path); err != nil {
		return nil, err
	}
	return f, nil
}

// Replace writes data to path through a new temporary file in the same directory
// and a rename: whatever was at path (a symbolic link, a FIFO someone put there)
// is replaced, never written through or waited on. Unlike WriteFile it does not
// refuse a link at path; for files the caller owns in a directory others can
// write to.
func Replace(path string, data []byte, perm os.FileMode) error {
	name, err := writeTemp(path, data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
