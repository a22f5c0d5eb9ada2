package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestPreCommitHook runs testdata/script/precommit_hook.txtar: the shipped
// .pre-commit-hooks.yaml under the real pre-commit, in a scratch repository whose
// .pre-commit-config.yaml names a snapshot of this checkout (its tracked and
// untracked files, committed) as the hook repository, as a user's config names
// github.com/aopkit/aopkit at a tag. It skips when pre-commit, git or go is
// missing or this checkout is no git repository, except in CI (CI=true), where
// any of these fails the test.
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("builds aoplint with pre-commit: not in -short")
	}
	if raceEnabled {
		t.Skip("real processes only, none race-built: run without -race (race_test.go)")
	}
	repo := mustAbs("../..")
	tmp := t.TempDir()
	missing := ""
	for _, tool := range []string{"pre-commit", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = tool + " is not installed"
		}
	}
	if missing == "" {
		if err := git(repo, "rev-parse", "HEAD"); err != nil {
			missing = repo + " is no git repository with a commit"
		}
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the pre-commit hook test must run in CI: %s", missing)
		}
		t.Skip(missing)
	}
	hookRepo := filepath.Join(tmp, "hook-repo")
	rev, err := snapshot(repo, hookRepo)
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Files: []string{"../../testdata/script/precommit_hook.txtar"},
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", mustAbs("../../fixtures"))
			env.Setenv("PRE_COMMIT_HOME", filepath.Join(tmp, "pre-commit"))
			// pre-commit builds aoplint with the caller's environment: share the
			// module and build caches, so no download or rebuild is needed.
			for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS", "GOTOOLCHAIN"} {
				if v := goEnv(k); v != "" {
					env.Setenv(k, v)
				}
			}
			// pre-commit and git need a home: keep the user's (its git
			// configuration), or a scratch one.
			home := os.Getenv("HOME")
			if home == "" {
				home = filepath.Join(tmp, "home")
			}
			env.Setenv("HOME", home)
			// A checkout owned by another user (CI containers) is still cloned.
			env.Setenv("GIT_CONFIG_COUNT", "1")
			env.Setenv("GIT_CONFIG_KEY_0", "safe.directory")
			env.Setenv("GIT_CONFIG_VALUE_0", "*")
			cfg := fmt.Sprintf("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: aoplint\n", hookRepo, rev)
			return os.WriteFile(filepath.Join(env.WorkDir, "repo", ".pre-commit-config.yaml"), []byte(cfg), 0o644)
		},
	})
}

// snapshot commits the tracked and untracked (not ignored) files of the checkout
// at src into a new repository at dst and returns the commit.
func snapshot(src, dst string) (string, error) {
	out, err := exec.Command("git", "-c", "safe.directory=*", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from := filepath.Join(src, filepath.FromSlash(name))
		st, err := os.Lstat(from)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := copyFile(from, to, st.Mode()); err != nil {
			return "", err
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "snapshot"}} {
		if err := git(dst, args...); err != nil {
			return "", err
		}
	}
	rev, err := exec.Command("git", "-C", dst, "rev-parse", "HEAD").Output()
	return strings.TrimSpace(string(rev)), err
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*", "-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func goEnv(key string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
