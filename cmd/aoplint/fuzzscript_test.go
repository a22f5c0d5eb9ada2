package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFuzzScriptLists: .ci/fuzz.sh (make fuzz) finds the fuzz targets itself:
// for a few packages, what it lists is every func FuzzX(*testing.F) of their
// test files, and nothing else.
func TestFuzzScriptLists(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	pkgs := []string{"lint/suppress", "lint/aof", "lint/internal/numlit"}
	var want []string
	for _, dir := range pkgs {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*_test.go"))
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Fuzz") {
					want = append(want, "github.com/aopkit/aopkit/"+dir+" "+fd.Name.Name)
				}
			}
		}
	}
	if len(want) < 2 {
		t.Fatalf("found %d fuzz targets in %v: the test needs some", len(want), pkgs)
	}
	args := []string{"../../.ci/fuzz.sh", "--list"}
	for _, p := range pkgs {
		args = append(args, "./"+p)
	}
	out, err := exec.Command("bash", args...).Output()
	if err != nil {
		t.Fatalf("fuzz.sh --list: %v", err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("fuzz.sh lists\n%s\nthe sources have\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// fakeGo is a go command for fuzz.sh: one package with the targets FuzzA and
// FuzzB; `go test -fuzz` prints and exits as the runs file's lines say, one
// line a run ("flake", "crash", "fail", "pass"), and logs each run.
const fakeGo = `#!/usr/bin/env bash
dir=$(dirname "$0")
case "$1 $2" in
"list "*) echo example.com/p ;;
"test -list") [[ -e $dir/nolist ]] && { echo "p_test.go:1: syntax error"; exit 1; }; printf 'FuzzA\nFuzzB\nok  \texample.com/p\t0.01s\n' ;;
*)
  n=$(wc -l <"$dir/log"); echo "$*" >>"$dir/log"
  case $(sed -n "$((n+1))p" "$dir/runs") in
  flake) printf -- '--- FAIL: FuzzA (2.01s)\n    context deadline exceeded\nFAIL\n'; exit 1 ;;
  crash) printf -- '--- FAIL: FuzzA (0.10s)\n    context deadline exceeded\n    Failing input written to testdata/fuzz/FuzzA/1\nFAIL\n'; exit 1 ;;
  fail) printf -- '--- FAIL: FuzzA (0.10s)\n    panic: boom\nFAIL\n'; exit 1 ;;
  *) echo PASS ;;
  esac ;;
esac
`

// TestFuzzScriptRetriesTheDeadlineFlake: a target that fails with the fuzz
// coordinator's "context deadline exceeded" and no failing input is run once
// more; a second such failure, a crash (an input written) or any other failure
// fails the script; a package whose test targets cannot be listed fails it too.
func TestFuzzScriptRetriesTheDeadlineFlake(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script, _ := filepath.Abs("../../.ci/fuzz.sh")
	for _, tc := range []struct {
		name, runs string
		nolist     bool
		ok         bool
		want       int // go test -fuzz runs
	}{
		{"pass", "pass\npass\n", false, true, 2},
		{"flake then pass", "flake\npass\npass\n", false, true, 3},
		{"flake twice", "flake\nflake\npass\n", false, false, 2},
		{"flake of the second target", "pass\nflake\npass\n", false, true, 3},
		{"crash", "crash\npass\n", false, false, 1},
		{"other failure", "fail\npass\n", false, false, 1},
		{"cannot list", "pass\npass\n", true, false, 0},
	} {
		dir := t.TempDir()
		goCmd := filepath.Join(dir, "go")
		must(t, os.WriteFile(goCmd, []byte(fakeGo), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "runs"), []byte(tc.runs), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "log"), nil, 0o644))
		if tc.nolist {
			must(t, os.WriteFile(filepath.Join(dir, "nolist"), nil, 0o644))
		}
		cmd := exec.Command("bash", script)
		cmd.Env = append(os.Environ(), "GO="+goCmd, "FUZZTIME=2s")
		out, err := cmd.CombinedOutput()
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		runs := strings.Count(string(log), "\n")
		if (err == nil) != tc.ok || runs != tc.want {
			t.Errorf("%s: err %v, %d runs; want ok %v, %d runs\n%s", tc.name, err, runs, tc.ok, tc.want, out)
		}
		if tc.ok && !strings.Contains(string(out), "fuzz: 2 targets passed") {
			t.Errorf("%s: no summary:\n%s", tc.name, out)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
