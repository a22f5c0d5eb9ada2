package lintstep_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	_ "github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/conform/lintstep"
	"github.com/aopkit/aopkit/conform/runner"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/mockagent"
)

// detailsAgent is a correct aop-output agent that writes its details to name
// (content as given; "": it writes nothing), as the spec's table of task types has it: Analysis in a
// Markdown file, Code Changes in a diff, Test Results and Build Output in logs.
func detailsAgent(name, content string) *mockagent.Agent {
	return &mockagent.Agent{Protocol: "aop-output", Run: func(ctx context.Context, env mockagent.Env, fault string) int {
		bufio.NewReader(env.Stdin).ReadBytes('\n')
		scratch := env.Getenv("AOPKIT_SCRATCH")
		if scratch == "" {
			scratch = env.Dir
		}
		p := filepath.Join(scratch, filepath.FromSlash(name))
		if content != "" {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return 1
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return 1
			}
		}
		now := time.Now().UTC().Format(time.RFC3339)
		fmt.Fprintf(env.Stdout, "[AOP:START] %s\n[AOP:TASK] Analyze API performance bottlenecks\n\n", now)
		fmt.Fprintf(env.Stdout, "[AOP:SUMMARY]\n- Examined 3 endpoints\n- 1 slow query found\n\n")
		fmt.Fprintf(env.Stdout, "[AOP:DETAILS_FILE] %s\n[AOP:METRICS] items_examined: 3, duration: 1s\n[AOP:STATUS] success\n[AOP:END] %s\n", name, now)
		return 0
	}}
}

// TestNonJSONDetails: a details file that is not .json (Markdown, a diff, a log)
// is not a JSON-lines stream: the lint step does not judge its lines, and
// details/fields (the fields of a JSON details file) is NOT-APPLICABLE to it. A
// .json details file that is not JSON still fails details/file, and only it.
func TestNonJSONDetails(t *testing.T) {
	ss, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, content string
		fields        conform.Verdict
		file          conform.Verdict
		lint          conform.Verdict // aop-output/lint/messages-valid
	}{
		{"reports/analysis-1.md", "# Analysis\n\nThe `/orders` endpoint runs one query per item.\n\n- slow: GET /orders (1.2 s)\n", conform.NotApplicable, conform.Pass, conform.Pass},
		{"reports/changes.diff", "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n", conform.NotApplicable, conform.Pass, conform.Pass},
		{"reports/build.log", "[agent] go build ./...\nok\n{\"not\": \"a message\"}\n", conform.NotApplicable, conform.Pass, conform.Pass},
		{"reports/notes.md", "{\"aop_version\":\"1.0.0\"}\n", conform.NotApplicable, conform.Pass, conform.Pass},
		{"reports/details.json", "{\"aop_version\":\"1.0.0\",\"agent_id\":\"a\",\"task\":\"t\",\"timestamp\":\"2025-01-01T00:00:00Z\",\"results\":{}}\n", conform.Pass, conform.Pass, conform.Pass},
		// One failure: details/fields and the lint finding on the file are
		// NOT-JUDGED under details/file.
		{"reports/broken.json", "# not JSON\n", conform.NotJudged, conform.Fail, conform.NotJudged},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := runner.Run(context.Background(), runner.Options{
				Protocol: "aop-output", Command: []string{"agent"}, Scenarios: ss,
				Run: "aop-output/lint/messages-valid,aop-output/details/*", OutDir: t.TempDir(),
				Launcher: agentio.InProcess{Agent: detailsAgent(tt.name, tt.content)},
				Linter:   lintstep.AOPLint{}, NoConfirm: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, r := range rep.Results {
				if r.Scenario != "aop-output-analysis" || r.Verdict == conform.Skip {
					continue
				}
				want := tt.lint
				switch r.Check {
				case "aop-output/details/fields":
					want = tt.fields
				case "aop-output/details/file":
					want = tt.file
				}
				seen++
				if r.Verdict != want {
					t.Errorf("%s: %s (%s), want %s", r.Check, r.Verdict, r.Message, want)
				}
			}
			if seen != 3 {
				t.Errorf("%d results in aop-output-analysis, want 3", seen)
			}
		})
	}
}

// TestDetailsMissingInScratch: the lint step knows the directory the agent ran in
// (its scratch directory), so a details file missing there is a lint error
// (AOPOUT-DETAILS-002), on details/file.
func TestDetailsMissingInScratch(t *testing.T) {
	ss, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.Run(context.Background(), runner.Options{
		Protocol: "aop-output", Command: []string{"agent"}, Scenarios: ss,
		Run: "aop-output/details/file", OutDir: t.TempDir(),
		Launcher: agentio.InProcess{Agent: detailsAgent("reports/never-written.md", "")},
		Linter:   lintstep.AOPLint{}, NoConfirm: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Scenario != "aop-output-analysis" || r.Check != "aop-output/details/file" {
			continue
		}
		found := false
		for _, l := range r.Lint {
			found = found || (l.Rule == "AOPOUT-DETAILS-002" && l.Severity == "error")
		}
		if r.Verdict != conform.Fail || !found {
			t.Errorf("%s: %s %s, lint %+v: want FAIL with the AOPOUT-DETAILS-002 error", r.Check, r.Verdict, r.Message, r.Lint)
		}
		return
	}
	t.Fatal("no aop-output/details/file result in aop-output-analysis")
}
