package aopconformcmd

import (
	"testing"

	"github.com/aopkit/aopkit/conform"
)

func TestExitFor(t *testing.T) {
	must := func(v conform.Verdict) conform.Result {
		return conform.Result{Check: "aop2/5/final-response", Scenario: "s", Protocol: "aop2", Level: "MUST", Tier: "core", Verdict: v}
	}
	for _, tt := range []struct {
		name    string
		results []conform.Result
		harness int
		want    int
	}{
		{"all passed", []conform.Result{must(conform.Pass)}, 0, 0},
		{"a MUST failed", []conform.Result{must(conform.Fail)}, 0, exitMustBad},
		{"only the harness failed", []conform.Result{must(conform.Pass), must(conform.HarnessError)}, 1, exitHarness},
		{"a MUST failed and the harness failed elsewhere", []conform.Result{must(conform.Fail), must(conform.HarnessError)}, 1, exitMustBad},
	} {
		rep := &conform.Report{Protocol: "aop2", Results: tt.results, HarnessErrors: tt.harness}
		if got := exitFor(rep); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}
