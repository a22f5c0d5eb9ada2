package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"aoplint": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/aoplint_*.txtar: every command, format, exit code
// and input kind of aoplint, as a user types them.
func TestScripts(t *testing.T) {
	if raceEnabled {
		t.Skip("aoplint as processes: run without -race (race_test.go)")
	}
	files, err := filepath.Glob("../../testdata/script/aoplint_*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", mustAbs("../../fixtures"))
			env.Setenv("ACTION", mustAbs("../../action"))
			return nil
		},
	})
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}
