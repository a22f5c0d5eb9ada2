package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/pkg/testkit"
)

// TestMain makes `aoplint`, `aopconform` and `mockagent` commands of the test binary
// (the testscript kit third parties use, which also makes the binary the agents'
// supervisor): in testscript suites and on the PATH of every other test of this package.
//
// Its parallel tests mostly wait on real processes (scenario deadlines, grace
// periods), not on the CPU: up to waitingTests of them run at once where
// GOMAXPROCS is lower (2 on CI), unless -test.parallel says otherwise. Not
// under the race detector, whose processes are CPU-bound.
func TestMain(m *testing.M) {
	if p := flag.Lookup("test.parallel"); p != nil && !raceEnabled && runtime.GOMAXPROCS(0) < waitingTests {
		p.Value.Set(strconv.Itoa(waitingTests)) // a -test.parallel given is parsed after this
	}
	testkit.Main(m, nil)
}

// waitingTests is how many parallel tests TestMain lets run at once.
const waitingTests = 8

// TestScripts runs the aopconform testscript suites beside the other
// real-process tests (parallel, after the in-process ones): their processes
// mostly wait on the scenarios' clocks.
func TestScripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "aopconform_*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/script/aopconform_*.txtar")
	}
	sort.Strings(files)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{Files: files, UpdateScripts: *update, Setup: func(e *testscript.Env) error {
		// $REPO: scripts run files of the repository (testdata/orchestrators).
		e.Setenv("REPO", repo)
		// $TESTBIN: the directory of the aopconform and mockagent commands, for
		// scripts that run them with a PATH that does not name it.
		for _, d := range filepath.SplitList(e.Getenv("PATH")) {
			if _, err := os.Stat(filepath.Join(d, "aopconform")); err == nil {
				e.Setenv("TESTBIN", d)
				break
			}
		}
		return nil
	}, Condition: func(cond string) (bool, error) {
		if cond == "landlock" {
			return agentio.LandlockABI() > 0, nil
		}
		return false, fmt.Errorf("unknown condition %q", cond)
	}})
}
