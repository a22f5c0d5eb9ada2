package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// RunDir makes the directory one run writes its transcripts to: out itself when it
// does not exist yet or is an empty directory, else a fresh run-<time>-<random>
// directory inside it, so that two runs sharing --out never mix (or overwrite) each
// other's files.
func RunDir(out string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	err := os.Mkdir(out, 0o755)
	if err == nil {
		return out, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s exists and is not a directory", out)
	}
	if ents, err := os.ReadDir(out); err == nil && len(ents) == 0 {
		return out, nil
	}
	return os.MkdirTemp(out, "run-"+time.Now().UTC().Format("20060102T150405Z")+"-")
}

// CreateNew creates a file the run writes, refusing to overwrite anything that is
// already there (a file this run did not create) and never following a symlink.
func CreateNew(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s already exists and this run did not create it: refusing to overwrite it", path)
	}
	return f, err
}
