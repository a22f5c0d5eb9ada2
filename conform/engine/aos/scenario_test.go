package aos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	mockaos "github.com/aopkit/aopkit/mockagent/aos"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in fixtures/reference/aos")

var start = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const fixtures = "../../../fixtures/reference/aos"

func loadConfig(t *testing.T, name string) aos.Config {
	t.Helper()
	p, err := aos.LoadPolicy(filepath.Join(fixtures, "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(fixtures, "script.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc aos.Script
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	return aos.Config{Scratch: t.TempDir(), Scenario: "aos/" + name, Policy: p, Script: sc}
}

type scenario struct {
	name     string
	fault    string
	rules    []string // the distinct violation rules, sorted; nil = clean
	executed []string // "name to=..." summary of what ran
	exit     int
}

// The reference script: search (allowed), delete (denied), send to an external
// address (modified to the review mailbox).
var okRun = []string{"exec-1 search_email", "exec-3 send_email to=review@company.example"}

var scenarios = []scenario{
	{name: "correct", executed: okRun},
	{name: "ignore-deny", fault: "ignore-deny", rules: []string{"AOS-SEQ-DENIED-EXECUTED"},
		executed: []string{"exec-1 search_email", "exec-2 delete_email", "exec-3 send_email to=review@company.example"}},
	{name: "ignore-modify", fault: "ignore-modify", rules: []string{"AOS-SEQ-MODIFY-IGNORED"},
		executed: []string{"exec-1 search_email", "exec-3 send_email to=cfo@external.example"}},
	{name: "hang", fault: "hang", rules: []string{"aos/agent/exit"}, exit: -1},
	{name: "exceed-timeout", fault: "exceed-timeout", rules: []string{"aos/agent/exit"}, exit: -1},
	{name: "crash-mid-task", fault: "crash-mid-task", rules: []string{"AOS-SEQ-RESULT-MISSING", "aos/agent/exit"},
		executed: []string{"exec-1 search_email"}, exit: 2},
	{name: "malformed-json", fault: "malformed-json", rules: []string{"AOS-JSONRPC-PARSE"}, executed: okRun},
	{name: "bad-timestamps", fault: "bad-timestamps", rules: []string{"AOS-CTX-TIMESTAMP"}},
	{name: "stdout-garbage", fault: "stdout-garbage", rules: []string{"AOS-STDOUT-EXECUTED"}, executed: okRun},
	{name: "wrong-jsonrpc-version", fault: "wrong-jsonrpc-version", rules: []string{"AOS-JSONRPC-VERSION"}},
	{name: "missing-citation", fault: "missing-citation", rules: []string{"AOS-MESSAGE-CITATION"}, executed: okRun},
	{name: "result-before-request", fault: "result-before-request", rules: []string{"AOS-SEQ-RESULT-ORDER"}, executed: okRun},
	{name: "duplicate-execution-id", fault: "duplicate-execution-id", rules: []string{"AOS-SEQ-EXECID-DUP"},
		executed: []string{"exec-1 search_email"}},
	{name: "oversize-payload", fault: "oversize-payload", rules: []string{"AOS-HTTP-BODY-LIMIT"}, executed: okRun},
	{name: "wrong-content-type", fault: "wrong-content-type", rules: []string{"AOS-HTTP-CONTENT-TYPE"}},
	{name: "unknown-method", fault: "unknown-method", rules: []string{"AOS-JSONRPC-METHOD"},
		executed: []string{"exec-3 send_email to=review@company.example"}},
	{name: "unguarded-execution", fault: "unguarded-execution", rules: []string{"AOS-SEQ-RESULT-ORDER", "AOS-SEQ-UNGUARDED"},
		executed: []string{"exec-1 search_email", "exec-3 send_email to=cfo@external.example"}},
}

func summary(ex []aos.Executed) []string {
	var out []string
	for _, e := range ex {
		s := e.ExecutionID + " " + e.Name
		if to, ok := e.Arguments["to"]; ok {
			s += " to=" + to.(string)
		}
		out = append(out, s)
	}
	return out
}

func TestScenarios(t *testing.T) {
	agent, err := mockagent.Lookup("aos")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, sc := range scenarios {
		covered[sc.fault] = true
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake(start)
			var transcript bytes.Buffer
			s, err := aos.NewSession(fake, loadConfig(t, sc.name), &transcript)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			exit := s.Simulate(context.Background(), agent, sc.fault, fake, aos.Options{})
			if exit.Code != sc.exit {
				t.Errorf("exit %+v, want %d", exit, sc.exit)
			}
			if got := s.Rules(); !reflect.DeepEqual(got, sc.rules) {
				t.Errorf("violations %v, want %v\n%+v", got, sc.rules, s.Violations())
			}
			if got := summary(s.Executed); !reflect.DeepEqual(got, sc.executed) {
				t.Errorf("executed %v, want %v", got, sc.executed)
			}
			golden(t, sc.name+".jsonl", transcript.Bytes())
		})
	}
	for _, f := range mockaos.Faults {
		if !covered[f.Name] {
			t.Errorf("fault %s has no scenario", f.Name)
		}
	}
}

// golden compares got with its golden transcript (go test -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	enginetest.Golden(t, filepath.Join(fixtures, name), got, *update)
}

// TestRealProcess runs mockagent as a process against the guardian on the wall clock.
func TestRealProcess(t *testing.T) {
	bin := enginetest.BuildMockagent(t)
	for _, c := range []struct {
		fault string
		rules []string
	}{{"", nil}, {"ignore-deny", []string{"AOS-SEQ-DENIED-EXECUTED"}}} {
		t.Run("fault="+c.fault, func(t *testing.T) {
			clk := clock.Real{}
			s, err := aos.NewSession(clk, loadConfig(t, "process"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			args := []string{bin, "--protocol", "aos"}
			if c.fault != "" {
				args = append(args, "--fault", c.fault)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := agentio.Process{Clock: clk}.Launch(ctx, agentio.Spec{Dir: s.Cfg.Scratch, Env: s.Env(), Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if exit := s.Drive(ctx, conn, clk, aos.Options{}); exit.Code != 0 {
				t.Errorf("exit %+v", exit)
			}
			if got := s.Rules(); !reflect.DeepEqual(got, c.rules) {
				t.Errorf("violations %v, want %v: %+v", got, c.rules, s.Violations())
			}
			if !strings.Contains(strings.Join(summary(s.Executed), ","), "search_email") {
				t.Errorf("executed %v", summary(s.Executed))
			}
		})
	}
}
