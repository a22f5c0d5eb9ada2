package aos

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/mockagent"
)

// TestNoBindingEnvironment: without its binding the agent says so and exits 2.
func TestNoBindingEnvironment(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), mockagent.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Clock: clock.NewFake(time.Unix(0, 0))}, "")
	if code != 2 || errb.Len() == 0 {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestFaultRulesNameChecks: every fault's Rule starts with a check aopconform has.
func TestFaultRulesNameChecks(t *testing.T) {
	for _, f := range faults.List() {
		id, _, _ := strings.Cut(f.Rule, " ")
		id = strings.TrimSuffix(id, ",")
		if conform.LookupCheck(id) == nil {
			t.Errorf("fault %s: %q is no check", f.Name, id)
		}
	}
}
