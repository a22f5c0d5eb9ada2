package aop2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/aopkit/aopkit/internal/safefile"
)

// Snapshot strategies of §7 (rollback_snapshot.snapshot_strategy; the v2.0.0
// enum). The contract names them without defining them; the engine's reading
// (docs/engine-aop2.md "rollback"):
//
//   - COPY: the artifact's bytes are copied to snapshot_path; the restore copies
//     them back.
//   - GIT_STASH: the artifact's state is kept as a git stash entry: `git stash
//     push --all -- <path>`, then `git stash apply --index` at once, so that the
//     executor finds the file as it was; snapshot_path holds a small record (the
//     HEAD and the stash commit). The restore puts the path back to that HEAD
//     (`git checkout HEAD -- <path>`, or removes it when HEAD has none) and
//     applies the stash again. An artifact equal to HEAD (or absent from HEAD and
//     the disk) needs no stash entry: the restore is the checkout alone.
//   - DIFF: the artifact is kept as its diff against HEAD, written to
//     snapshot_path (`git diff --binary HEAD -- <path>`; for a file HEAD does not
//     have, `git diff --no-index /dev/null <path>`). The restore puts the path
//     back to HEAD and applies the kept diff (`git apply`).
//
// Both git strategies need the workspace to be the top level of a git work tree
// with at least one commit, and git on PATH. Otherwise the engine takes the
// snapshot as COPY (the restored bytes are the same) and says so in a
// "snapshot-strategy" transcript event: a task is not refused for the shape of
// its workspace. The engine never touches a repository of which the workspace is
// only a subdirectory (a user's checkout around the scratch directory).
const (
	StrategyCopy     = "COPY"
	StrategyGitStash = "GIT_STASH"
	StrategyDiff     = "DIFF"
)

// gitTimeout bounds one git command of a snapshot or a restore.
const gitTimeout = 30 * time.Second

// git runs one git command in the workspace; stdin may be nil. It returns stdout;
// okCodes are exit codes besides 0 that are no error (git diff --no-index exits 1
// on a difference).
func git(ws string, stdin []byte, okCodes []int, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	full := append([]string{"-C", ws, "-c", "user.name=aopkit-engine", "-c", "user.email=aopkit-engine@localhost",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		for _, c := range okCodes {
			if ee.ExitCode() == c {
				return out.Bytes(), nil
			}
		}
	}
	if err != nil {
		return out.Bytes(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// gitWorkTree returns the HEAD commit of the git work tree whose top level is ws,
// or why the git strategies cannot be used there.
func gitWorkTree(ws string) (head, why string) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "git is not installed"
	}
	out, err := git(ws, nil, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "the workspace is not a git work tree"
	}
	top, err1 := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	real, err2 := filepath.EvalSymlinks(ws)
	if err1 != nil || err2 != nil || top != real {
		return "", "the workspace is not the top level of a git work tree (" + strings.TrimSpace(string(out)) + ")"
	}
	out, err = git(ws, nil, nil, "rev-parse", "--verify", "-q", "HEAD")
	if err != nil {
		return "", "the git repository has no commit yet"
	}
	return strings.TrimSpace(string(out)), ""
}

// takeGit takes a GIT_STASH or DIFF snapshot of s (Path, Existed set); it returns
// what snapshot_path holds.
func (s *snapshot) takeGit(ws, head string) ([]byte, error) {
	rel, err := filepath.Rel(ws, s.Path)
	if err != nil {
		return nil, err
	}
	s.rel, s.head = filepath.ToSlash(rel), head
	_, err = git(ws, nil, nil, "cat-file", "-e", head+":"+s.rel)
	s.inHead = err == nil
	switch s.Strategy {
	case StrategyDiff:
		switch {
		case s.inHead:
			return git(ws, nil, nil, "diff", "--binary", "--no-color", "--no-ext-diff", head, "--", s.rel)
		case s.Existed:
			return git(ws, nil, []int{1}, "diff", "--no-index", "--binary", "--no-color", "--no-ext-diff", "--", "/dev/null", s.rel)
		}
		return []byte{}, nil
	case StrategyGitStash:
		if s.inHead || s.Existed {
			before, _ := git(ws, nil, []int{1}, "rev-parse", "-q", "--verify", "refs/stash")
			if _, err := git(ws, nil, nil, "stash", "push", "--all", "-m", "aop2 snapshot of "+s.rel, "--", s.rel); err != nil {
				return nil, err
			}
			after, _ := git(ws, nil, []int{1}, "rev-parse", "-q", "--verify", "refs/stash")
			if sha := strings.TrimSpace(string(after)); sha != "" && sha != strings.TrimSpace(string(before)) {
				s.stash = sha
				if err := s.applyStash(ws); err != nil {
					return nil, fmt.Errorf("%v (the artifact is kept in stash %s)", err, sha)
				}
			}
			if got, _ := safefile.ReadFile(s.Path, maxArtifact); s.Existed && !bytes.Equal(got, s.orig) {
				return nil, fmt.Errorf("git stash did not give %s back as it was", s.rel)
			}
		}
		stash := s.stash
		if stash == "" {
			stash = "none (the artifact is HEAD's)"
		}
		return []byte(fmt.Sprintf("aop2 snapshot %s of %s\nhead %s\nstash %s\n", s.Strategy, s.rel, head, stash)), nil
	}
	return nil, fmt.Errorf("snapshot_strategy %q is not a git strategy", s.Strategy)
}

func (s *snapshot) applyStash(ws string) error {
	if _, err := git(ws, nil, nil, "stash", "apply", "--index", s.stash); err != nil {
		// --index fails when the staged state cannot be restored as such.
		if _, err2 := git(ws, nil, nil, "stash", "apply", s.stash); err2 != nil {
			return err
		}
	}
	return nil
}

// restoreGit puts the artifact back as a git snapshot recorded it: to the HEAD of
// the snapshot, then the stash applied (GIT_STASH) or the kept diff (DIFF).
func (s *snapshot) restoreGit(ws string) error {
	if s.inHead {
		if _, err := git(ws, nil, nil, "checkout", s.head, "--", s.rel); err != nil {
			return err
		}
	} else {
		if _, err := git(ws, nil, nil, "rm", "-q", "--cached", "--ignore-unmatch", "--", s.rel); err != nil {
			return err
		}
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	switch s.Strategy {
	case StrategyGitStash:
		if s.stash != "" {
			return s.applyStash(ws)
		}
	case StrategyDiff:
		if len(s.data) > 0 {
			if _, err := git(ws, s.data, nil, "apply", "--binary", "--whitespace=nowarn", "-"); err != nil {
				return err
			}
		}
	}
	return nil
}
