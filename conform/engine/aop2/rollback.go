package aop2

import (
	"bytes"
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
	data     []byte // what was copied
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

// takeSnapshot copies one artifact aside, to its snapshot_path (default
// .aop_snapshots/<path>.before in the workspace). The COPY strategy is
// implemented; GIT_STASH and DIFF are taken as COPY (the restored bytes are the
// same). An artifact that does not exist yet gets an empty snapshot file (the
// rollback deletes what the executor creates): either way the snapshot is a file
// at snapshot_path that the executor must leave alone.
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
	data, err := os.ReadFile(full)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = []byte{}
	case err != nil:
		return s, err
	default:
		s.Existed = true
	}
	s.data = data
	return s, writeFile(s.SnapPath, data)
}

// restore puts the artifact back as the snapshot recorded it.
func (s snapshot) restore() error {
	if _, err := os.Stat(s.SnapPath); err != nil {
		return fmt.Errorf("the snapshot %s is gone", s.SnapPath)
	}
	if !s.Existed {
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return copyFile(s.SnapPath, s.Path)
}

// intact reports whether the snapshot still holds what was taken ("" when it
// does, else "deleted" or "changed").
func (s snapshot) intact() string {
	got, err := os.ReadFile(s.SnapPath)
	switch {
	case err != nil:
		return "deleted"
	case !bytes.Equal(got, s.data):
		return "changed"
	}
	return ""
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
