package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

// TestMain makes `aopconform` and `mockagent` commands of the test binary: in
// testscript suites and on the PATH of every other test of this package.
func TestMain(m *testing.M) {
	agentio.Main()
	testscript.Main(m, map[string]func(){
		"aopconform": func() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) },
		"mockagent":  func() { os.Exit(mockagentMain(os.Args[1:])) },
	})
}

// mockagentMain plays cmd/mockagent (whose run function is not exported): the
// registered reference agent of a protocol on the real standard streams, SIGTERM
// cancelling it unless the fault is ignore-shutdown.
func mockagentMain(args []string) int {
	var protocol, fault string
	var rest []string
	listing := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "faults":
			listing = true
		case a == "--protocol" && i+1 < len(args):
			protocol = args[i+1]
			i++
		case strings.HasPrefix(a, "--protocol="):
			protocol = strings.TrimPrefix(a, "--protocol=")
		case a == "--fault" && i+1 < len(args):
			fault = args[i+1]
			i++
		case strings.HasPrefix(a, "--fault="):
			fault = strings.TrimPrefix(a, "--fault=")
		default:
			rest = append(rest, a)
		}
	}
	if listing {
		for _, p := range mockagent.Protocols() {
			if protocol != "" && p != protocol {
				continue
			}
			ag, _ := mockagent.Lookup(p)
			for _, f := range ag.Faults {
				fmt.Printf("%s %s  %s\n", p, f.Name, f.Rule)
			}
		}
		return 0
	}
	ag, err := mockagent.Lookup(protocol)
	if err != nil || (fault != "" && !ag.HasFault(fault)) {
		fmt.Fprintf(os.Stderr, "mockagent: unknown protocol %q or fault %q\n", protocol, fault)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	go func() {
		for range sigs {
			if fault != "ignore-shutdown" {
				cancel()
			}
		}
	}()
	dir, _ := os.Getwd()
	return ag.Run(ctx, mockagent.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Dir: dir, Args: rest, Clock: clock.Real{}}, fault)
}

func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "aopconform_*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/script/aopconform_*.txtar")
	}
	sort.Strings(files)
	testscript.Run(t, testscript.Params{Files: files, UpdateScripts: *update, Condition: func(cond string) (bool, error) {
		if cond == "landlock" {
			return agentio.LandlockABI() > 0, nil
		}
		return false, fmt.Errorf("unknown condition %q", cond)
	}})
}
