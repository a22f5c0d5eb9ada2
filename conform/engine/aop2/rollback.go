package aop2

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/internal/safefile"
)

// snapshot is one rollback snapshot the engine took before dispatch (§7).
type snapshot struct {
	Path     string // the artifact, absolute
	Display  string // the artifact as the TASK names it
	SnapPath string // the copy, absolute
	Existed  bool   // the artifact existed when the snapshot was taken
	Strategy string // as taken: COPY, GIT_STASH or DIFF (rollback_git.go)
	// Fallback says why a git strategy the TASK asked for was taken as COPY.
	Fallback string
	data     []byte // what snapshot_path holds
	orig     []byte // the artifact's bytes when the snapshot was taken
	// The git strategies: the path in the work tree, the HEAD of the snapshot,
	// whether HEAD has the path, the stash commit (GIT_STASH).
	rel, head, stash string
	inHead           bool
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

// takeSnapshot takes one artifact's snapshot by its strategy; what it keeps is a
// file at snapshot_path (default .aop_snapshots/<path>.before in the workspace)
// that the executor must leave alone. COPY copies the artifact there; GIT_STASH
// and DIFF use git (rollback_git.go), or COPY when the workspace is no git work
// tree (Fallback says why). An artifact that does not exist yet gets an empty
// snapshot (the rollback deletes what the executor creates).
func takeSnapshot(ws string, o Output) (snapshot, error) {
	s := snapshot{Display: o.Path, Strategy: o.Strategy}
	if s.Strategy == "" {
		s.Strategy = StrategyCopy
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
	// Regular files only, bounded: a FIFO or a device at the artifact's path
	// is an error (E_ROLLBACK_FAILED), never waited on.
	data, err := safefile.ReadFileIn(ws, full, maxArtifact)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = []byte{}
	case err != nil:
		return s, err
	default:
		s.Existed = true
	}
	s.orig = data
	if s.Strategy == StrategyGitStash || s.Strategy == StrategyDiff {
		head, why := gitWorkTree(ws)
		if why == "" {
			rec, err := s.takeGit(ws, head)
			if err != nil {
				return s, err
			}
			s.data = rec
			return s, writeFile(s.SnapPath, rec)
		}
		s.Fallback = why
		s.Strategy = StrategyCopy
	}
	s.data = data
	return s, writeFile(s.SnapPath, data)
}

// restore puts the artifact back as the snapshot recorded it (ws: the workspace).
func (s snapshot) restore(ws string) error {
	if _, err := os.Stat(s.SnapPath); err != nil {
		return fmt.Errorf("the snapshot %s is gone", s.SnapPath)
	}
	if s.Strategy == StrategyGitStash || s.Strategy == StrategyDiff {
		return s.restoreGit(ws)
	}
	// The executor may have made a directory on the artifact's way a link out
	// of the workspace: nothing is removed or written through it.
	if err := safefile.Inside(ws, filepath.Dir(s.Path)); err != nil {
		return err
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
	got, err := safefile.ReadFile(s.SnapPath, maxArtifact)
	var se *safefile.Error
	switch {
	case errors.As(err, &se):
		return "changed" // replaced by a FIFO, a device, a link or a larger file
	case err != nil:
		return "deleted"
	case !bytes.Equal(got, s.data):
		return "changed"
	}
	return ""
}

// maxArtifact bounds an artifact or snapshot the engine reads.
const maxArtifact = 16 << 20

// copyFile copies the snapshot from back to the artifact's path to. The executor
// could have made either a FIFO, a device or a link: from is read as a bounded
// regular file, and to is replaced (a new file renamed over it), never written
// through.
func copyFile(from, to string) error {
	data, err := safefile.ReadFile(from, maxArtifact)
	if err != nil {
		return err
	}
	return writeFile(to, data)
}

// writeFile writes a file the engine owns in the workspace, replacing whatever
// the executor put at its path (safefile.Replace).
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.Replace(path, data, 0o644)
}
