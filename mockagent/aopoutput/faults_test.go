package aopoutput

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/mockagent"
)

var ruleID = regexp.MustCompile(`^([A-Z][A-Z0-9]*(-[A-Z0-9]+)+|[a-z0-9-]+/[a-z0-9/-]+) `)

func TestFaultCatalogue(t *testing.T) {
	a, err := mockagent.Lookup("aop-output")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range a.Faults {
		if seen[f.Name] {
			t.Errorf("duplicate fault %s", f.Name)
		}
		seen[f.Name] = true
		if !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(f.Name) {
			t.Errorf("fault name %q is not kebab-case", f.Name)
		}
		if !ruleID.MatchString(f.Rule) {
			t.Errorf("fault %s: rule %q does not start with a rule ID or check ID", f.Name, f.Rule)
		}
		if f.Doc == "" {
			t.Errorf("fault %s has no doc", f.Name)
		}
	}
}

// TestNoBindingEnvironment: without its binding the agent says so and exits 2.
func TestNoBindingEnvironment(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), mockagent.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Clock: clock.NewFake(time.Unix(0, 0))}, "")
	if code != 2 || errb.Len() == 0 {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
