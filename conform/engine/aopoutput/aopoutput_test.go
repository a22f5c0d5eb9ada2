package aopoutput_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/aopoutput"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	mockout "github.com/aopkit/aopkit/mockagent/aopoutput"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in fixtures/reference/aop-output")

var start = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

const fixtures = "../../../fixtures/reference/aop-output"

const specExample = `[AOP:START] 2026-02-05T10:30:00Z
[AOP:TASK] Search for auth implementations

[AOP:SUMMARY]
- Found 8 auth-related files in src/auth/
- Main handler: src/auth/handler.ts (450 lines)
- Uses JWT + session hybrid approach
- 3 security issues flagged for review

[AOP:DETAILS_FILE] none
[AOP:METRICS] files_scanned: 234, matches: 8, duration: 12s
[AOP:STATUS] success
[AOP:END] 2026-02-05T10:30:12Z
`

func TestParseSpecExample(t *testing.T) {
	res := aopoutput.Check([]byte(specExample), t.TempDir(), "search")
	if !res.OK() || res.Status != "success" || len(res.Findings) != 0 {
		t.Errorf("spec example: status %q findings %+v", res.Status, res.Findings)
	}
	if len(res.Report.Bullets) != 4 || res.Report.Values["TASK"] != "Search for auth implementations" {
		t.Errorf("report %+v", res.Report)
	}
}

func TestCheckFindings(t *testing.T) {
	tests := []struct {
		name, out, taskType string
		rules               []string
	}{
		{"plain text", "Found the following files:\n1. src/auth/handler.ts\n", "", []string{"AOPOUT-MARKER-MISSING"}},
		{"uppercase status", strings.Replace(specExample, "] success", "] SUCCESS", 1), "search", []string{"AOPOUT-STATUS"}},
		{"dialect status", strings.Replace(specExample, "] success", "] BLOCKED", 1), "search", []string{"AOPOUT-STATUS"}},
		{"build summary limit", specExample, "build", nil}, // the example summary is 167 chars: under 200
		{"duplicate marker", strings.Replace(specExample, "[AOP:STATUS] success\n", "[AOP:STATUS] success\n[AOP:STATUS] success\n", 1), "", []string{"AOPOUT-MARKER-DUP"}},
		{"files dialect", strings.Replace(specExample, "[AOP:METRICS]", "[AOP:FILES] a.ts\n[AOP:METRICS]", 1), "", []string{"AOPOUT-MARKER-UNKNOWN"}},
		{"bad metrics", strings.Replace(specExample, "files_scanned: 234, matches: 8, duration: 12s", "lots", 1), "", []string{"AOPOUT-METRICS"}},
		{"summary without bullets", strings.Replace(specExample, "- Found", "Found", 1), "", nil},
		{"only summary, file and status (prompt dialect)", "[AOP:SUMMARY]\n- a\n[AOP:DETAILS_FILE] none\n[AOP:STATUS] success\n", "", []string{"AOPOUT-MARKER-MISSING"}},
		{"end before start", strings.Replace(specExample, "10:30:12Z", "10:29:00Z", 1), "", []string{"AOPOUT-TIMESTAMP"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := aopoutput.Check([]byte(tc.out), t.TempDir(), tc.taskType)
			if got := res.Rules(); !reflect.DeepEqual(got, tc.rules) {
				t.Errorf("rules %v, want %v: %+v", got, tc.rules, res.Findings)
			}
		})
	}
}

func TestLoadDetailsStaysInScratch(t *testing.T) {
	root := t.TempDir()
	scratch := filepath.Join(root, "scratch")
	os.MkdirAll(filepath.Join(scratch, "outputs"), 0o755)
	os.WriteFile(filepath.Join(scratch, "outputs", "d.json"), []byte(`{"aop_version":"1.0.0"}`), 0o644)
	os.WriteFile(filepath.Join(root, "secret.json"), []byte(`{"secret":true}`), 0o644)
	os.Symlink(filepath.Join(root, "secret.json"), filepath.Join(scratch, "link.json"))
	os.WriteFile(filepath.Join(scratch, "bad.json"), []byte(`{"a":`), 0o644)
	for _, c := range []struct{ path, rule string }{
		{"outputs/d.json", ""},
		{filepath.Join(scratch, "outputs", "d.json"), ""},
		{"./outputs/../outputs/d.json", ""},
		{"../secret.json", "AOPOUT-DETAILS-ESCAPE"},
		{filepath.Join(root, "secret.json"), "AOPOUT-DETAILS-ESCAPE"},
		{"link.json", "AOPOUT-DETAILS-ESCAPE"},
		{"/etc/passwd", "AOPOUT-DETAILS-ESCAPE"},
		{"outputs/none.json", "AOPOUT-DETAILS-MISSING"},
		{"outputs", "AOPOUT-DETAILS-MISSING"},
		{"bad.json", "AOPOUT-DETAILS-JSON"},
	} {
		_, d, rule, err := aopoutput.LoadDetails(scratch, c.path)
		if rule != c.rule || (c.rule == "" && (err != nil || d["aop_version"] != "1.0.0")) {
			t.Errorf("LoadDetails(%q) = rule %q, %v; want %q", c.path, rule, err, c.rule)
		}
	}
}

type scenario struct {
	fault    string
	taskType string
	rules    []string
	status   string
}

var scenarios = []scenario{
	{fault: "", status: "success"},
	{fault: "", taskType: "build", status: "success"},
	{fault: "hang", rules: []string{"AOPOUT-MARKER-MISSING", "aop-output/agent/exit"}},
	{fault: "exceed-timeout", rules: []string{"AOPOUT-MARKER-MISSING", "aop-output/agent/exit"}},
	{fault: "crash-mid-task", rules: []string{"AOPOUT-MARKER-MISSING", "aop-output/agent/exit"}},
	{fault: "crash-after-partial-report", rules: []string{"AOPOUT-MARKER-MISSING", "aop-output/agent/exit"}},
	{fault: "malformed-json", rules: []string{"AOPOUT-DETAILS-JSON"}},
	{fault: "empty-report", rules: []string{"AOPOUT-SUMMARY-EMPTY"}},
	{fault: "no-completion-report", rules: []string{"AOPOUT-MARKER-MISSING"}},
	{fault: "oversize-payload", rules: []string{"AOPOUT-OUTPUT-SIZE"}},
	{fault: "bad-timestamps", rules: []string{"AOPOUT-TIMESTAMP"}},
	{fault: "stdout-garbage", rules: []string{"AOPOUT-STRAY-OUTPUT"}, status: "success"},
	{fault: "missing-marker", rules: []string{"AOPOUT-MARKER-MISSING"}},
	{fault: "summary-too-long", rules: []string{"AOPOUT-SUMMARY-LENGTH"}},
	{fault: "bad-status", rules: []string{"AOPOUT-STATUS"}},
	{fault: "details-file-missing", rules: []string{"AOPOUT-DETAILS-MISSING"}},
	{fault: "markers-out-of-order", rules: []string{"AOPOUT-MARKER-ORDER"}},
	{fault: "details-path-escape", rules: []string{"AOPOUT-DETAILS-ESCAPE"}},
	{fault: "task-too-long", rules: []string{"AOPOUT-TASK-LENGTH"}},
	{fault: "too-many-bullets", rules: []string{"AOPOUT-SUMMARY-BULLETS"}, status: "success"},
}

func name(sc scenario) string {
	n := sc.fault
	if n == "" {
		n = "correct"
	}
	if sc.taskType != "" {
		n += "-" + sc.taskType
	}
	return n
}

func TestScenarios(t *testing.T) {
	agent, err := mockagent.Lookup("aop-output")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, sc := range scenarios {
		covered[sc.fault] = true
		t.Run(name(sc), func(t *testing.T) {
			t.Parallel()
			fake := clock.NewFake(start)
			taskType := sc.taskType
			if taskType == "" {
				taskType = "analysis"
			}
			var transcript bytes.Buffer
			s := aopoutput.NewSession(fake, aopoutput.Config{Scratch: t.TempDir(), Scenario: "aop-output/" + name(sc),
				Task: "Analyze API performance bottlenecks in the users service", TaskType: taskType}, &transcript)
			res := s.Simulate(context.Background(), agent, sc.fault, fake, aopoutput.Options{})
			if got := res.Rules(); !reflect.DeepEqual(got, sc.rules) {
				t.Errorf("rules %v, want %v: %+v", got, sc.rules, res.Findings)
			}
			if res.Status != sc.status {
				t.Errorf("status %q, want %q", res.Status, sc.status)
			}
			if sc.status != "" && res.Details["aop_version"] != "1.0.0" {
				t.Errorf("details %v", res.Details)
			}
			golden(t, name(sc)+".jsonl", transcript.Bytes())
		})
	}
	for _, f := range mockout.Faults {
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

func TestRealProcess(t *testing.T) {
	bin := enginetest.BuildMockagent(t)
	for _, c := range []struct {
		fault string
		rules []string
	}{{"", nil}, {"details-path-escape", []string{"AOPOUT-DETAILS-ESCAPE"}}} {
		t.Run("fault="+c.fault, func(t *testing.T) {
			clk := clock.Real{}
			scratch := t.TempDir()
			s := aopoutput.NewSession(clk, aopoutput.Config{Scratch: scratch, Scenario: "aop-output/process", Task: "Run unit test suite", TaskType: "test"}, nil)
			args := []string{bin, "--protocol", "aop-output"}
			if c.fault != "" {
				args = append(args, "--fault", c.fault)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, err := agentio.Process{Clock: clk}.Launch(ctx, agentio.Spec{Dir: scratch, Env: s.Env(), Args: args})
			if err != nil {
				t.Fatal(err)
			}
			res := s.Drive(ctx, conn, clk, aopoutput.Options{})
			if got := res.Rules(); !reflect.DeepEqual(got, c.rules) {
				t.Errorf("rules %v, want %v: %+v", got, c.rules, res.Findings)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(scratch), "outside.json")); err == nil {
				t.Error("the agent wrote outside its scratch directory")
			}
		})
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(specExample), "search")
	f.Add([]byte("[AOP:\n[AOP:]x\n[AOP:SUMMARY]"), "")
	f.Add([]byte("[AOP:DETAILS_FILE] ../../etc/passwd\n"), "build")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, out []byte, taskType string) {
		aopoutput.Check(out, dir, taskType)
	})
}
