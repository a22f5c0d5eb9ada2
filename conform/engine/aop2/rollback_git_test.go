package aop2

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitWorkspace makes a git work tree with one commit holding tracked.txt
// ("committed\n"), or skips the test when git is not installed.
func gitWorkspace(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "tracked.txt"), []byte("committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "tracked.txt"}, {"commit", "-q", "-m", "init"}} {
		if _, err := git(ws, nil, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := writeFile(path, []byte(content)); err != nil {
		t.Fatal(err)
	}
}

// TestGitSnapshots: GIT_STASH and DIFF snapshots are taken and restored with git,
// for a tracked file with uncommitted changes, a clean tracked file, an untracked
// file and a file that does not exist yet; the executor's changes are undone and
// the work tree is as it was before the dispatch.
func TestGitSnapshots(t *testing.T) {
	for _, strategy := range []string{StrategyGitStash, StrategyDiff} {
		for _, tc := range []struct {
			name, path string
			before     *string // nil: the file does not exist
			tracked    bool
		}{
			{"tracked-modified", "tracked.txt", ptr("committed\nlocal change\n"), true},
			{"tracked-clean", "tracked.txt", ptr("committed\n"), true},
			{"untracked", "notes/new.txt", ptr("not committed\n"), false},
			{"absent", "out/created.txt", nil, false},
			{"binary", "blob.bin", ptr("\x00\x01\x02binary\xff\n"), false},
		} {
			t.Run(strategy+"/"+tc.name, func(t *testing.T) {
				ws := gitWorkspace(t)
				full := filepath.Join(ws, filepath.FromSlash(tc.path))
				if tc.before != nil {
					write(t, full, *tc.before)
				}
				status := func() string {
					out, err := git(ws, nil, nil, "status", "--porcelain", "--untracked-files=all", "--", tc.path)
					if err != nil {
						t.Fatal(err)
					}
					return string(out)
				}
				wantStatus := status()
				s, err := takeSnapshot(ws, Output{Path: tc.path, Snapshot: true, Strategy: strategy})
				if err != nil {
					t.Fatal(err)
				}
				if s.Strategy != strategy || s.Fallback != "" {
					t.Fatalf("taken as %s (%s), want %s", s.Strategy, s.Fallback, strategy)
				}
				// The executor finds the file as it was.
				got, err := os.ReadFile(full)
				if tc.before == nil && err == nil || tc.before != nil && string(got) != *tc.before {
					t.Fatalf("after the snapshot the artifact reads %q (%v), want %v", got, err, tc.before)
				}
				snap, _ := os.ReadFile(s.SnapPath)
				switch strategy {
				case StrategyDiff:
					if (tc.name == "tracked-modified" || tc.name == "untracked" || tc.name == "binary") != strings.Contains(string(snap), "diff --git") {
						t.Errorf("DIFF snapshot_path holds %q", snap)
					}
				case StrategyGitStash:
					list, _ := git(ws, nil, nil, "stash", "list")
					if (tc.name == "tracked-modified" || tc.name == "untracked" || tc.name == "binary") != strings.Contains(string(list), "aop2 snapshot of "+tc.path) {
						t.Errorf("stash list %q", list)
					}
				}
				// The executor overwrites the artifact (or creates it).
				write(t, full, "the executor's version\n")
				if intact := s.intact(); intact != "" {
					t.Errorf("snapshot %s", intact)
				}
				if err := s.restore(ws); err != nil {
					t.Fatal(err)
				}
				got, err = os.ReadFile(full)
				switch {
				case tc.before == nil && err == nil:
					t.Errorf("the created file is still there: %q", got)
				case tc.before != nil && string(got) != *tc.before:
					t.Errorf("restored %q (%v), want %q", got, err, *tc.before)
				}
				if st := status(); st != wantStatus {
					t.Errorf("git status after the restore %q, want %q", st, wantStatus)
				}
			})
		}
	}
}

func ptr(s string) *string { return &s }

// TestGitSnapshotsFallBackToCopy: outside a git work tree (or inside one whose top
// level is not the workspace, a user's checkout around the scratch directory) the
// git strategies are taken as COPY, and the reason is kept.
func TestGitSnapshotsFallBackToCopy(t *testing.T) {
	plain := t.TempDir()
	write(t, filepath.Join(plain, "a.txt"), "original\n")
	cases := map[string]string{"plain directory": plain}
	if _, err := exec.LookPath("git"); err == nil {
		sub := filepath.Join(gitWorkspace(t), "workspace")
		write(t, filepath.Join(sub, "a.txt"), "original\n")
		cases["subdirectory of a repository"] = sub
		empty := t.TempDir()
		if _, err := git(empty, nil, nil, "init", "-q"); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(empty, "a.txt"), "original\n")
		cases["repository without a commit"] = empty
	}
	for name, ws := range cases {
		for _, strategy := range []string{StrategyGitStash, StrategyDiff} {
			t.Run(name+"/"+strategy, func(t *testing.T) {
				s, err := takeSnapshot(ws, Output{Path: "a.txt", Snapshot: true, Strategy: strategy})
				if err != nil {
					t.Fatal(err)
				}
				if s.Strategy != StrategyCopy || s.Fallback == "" {
					t.Fatalf("taken as %s (fallback %q), want COPY with a reason", s.Strategy, s.Fallback)
				}
				t.Log(s.Fallback)
				write(t, filepath.Join(ws, "a.txt"), "changed\n")
				if err := s.restore(ws); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "original\n" {
					t.Errorf("restored %q", got)
				}
			})
		}
	}
}
