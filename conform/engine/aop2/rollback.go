package aop2

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// snapshot is one rollback snapshot the engine took before dispatch (§7).
type snapshot struct {
	Path     string // the artifact, absolute
	Display  string // the artifact as the TASK names it
	SnapPath string // the copy, absolute
	Existed  bool   // the artifact existed when the snapshot was taken
	Strategy string
}

// inside maps p (relative to ws, or absolute) to an absolute path inside ws.
func inside(ws, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(ws, p)
	}
	full = filepath.Clean(full)
	rel, err := filepath.Rel(ws, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the workspace %s", p, ws)
	}
	return full, nil
}

// takeSnapshot copies one artifact aside. The COPY strategy is implemented; GIT_STASH
// and DIFF are taken as COPY (the restored bytes are the same).
func takeSnapshot(ws string, o Output) (snapshot, error) {
	s := snapshot{Display: o.Path, Strategy: o.Strategy}
	if s.Strategy == "" {
		s.Strategy = "COPY"
	}
	full, err := inside(ws, o.Path)
	if err != nil {
		return s, err
	}
	s.Path = full
	rel, _ := filepath.Rel(ws, full)
	sp := o.SnapshotPath
	if sp == "" {
		sp = filepath.Join(".aop_snapshots", rel+".before")
	}
	if s.SnapPath, err = inside(ws, sp); err != nil {
		return s, err
	}
	if _, err := os.Stat(full); errors.Is(err, os.ErrNotExist) {
		// Nothing to copy: the rollback deletes what the executor creates. A marker
		// file records that the snapshot was taken.
		return s, writeFile(s.SnapPath+".absent", nil)
	}
	s.Existed = true
	return s, copyFile(full, s.SnapPath)
}

// restore puts the artifact back as the snapshot recorded it.
func (s snapshot) restore() error {
	if !s.Existed {
		if _, err := os.Stat(s.SnapPath + ".absent"); err != nil {
			return fmt.Errorf("the snapshot marker %s is gone", s.SnapPath+".absent")
		}
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if _, err := os.Stat(s.SnapPath); err != nil {
		return fmt.Errorf("the snapshot %s is gone", s.SnapPath)
	}
	return copyFile(s.SnapPath, s.Path)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
