package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
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
// mostly wait on the scenarios' clocks. They run scriptsAtOnce at a time
// inside this test's own place among the parallel tests (boundedT), so that
// its scripts do not take every place and leave the longest real-process
// tests (TestOrchestratorSide, TestForgePort) waiting for one.
func TestScripts(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	defer wg.Wait()
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
	testscript.RunT(boundedT{T: t, sem: make(chan struct{}, scriptsAtOnce), wg: &wg}, testscript.Params{Files: files, UpdateScripts: *update, Setup: func(e *testscript.Env) error {
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

// scriptsAtOnce is how many scripts TestScripts runs at once.
const scriptsAtOnce = 4

// boundedT is the testscript.T of TestScripts: each script runs as a subtest
// in a goroutine of its own, at most cap(sem) at once, and its Parallel does
// nothing (the subtests are not parallel tests: they take none of
// -test.parallel's places). wg counts the scripts still running: the test
// waits for them (t.Run may be called from several goroutines, but they must
// all return before the test does).
type boundedT struct {
	*testing.T
	sem chan struct{}
	wg  *sync.WaitGroup
}

func (t boundedT) Run(name string, f func(testscript.T)) {
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.sem <- struct{}{}
		defer func() { <-t.sem }()
		t.T.Run(name, func(st *testing.T) { f(boundedT{T: st, sem: make(chan struct{}, 1), wg: t.wg}) })
	}()
}

func (boundedT) Parallel() {}

func (boundedT) Verbose() bool { return testing.Verbose() }
