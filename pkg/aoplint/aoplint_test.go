package aoplint_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/pkg/aoplint"
)

func TestLintBytesAndReader(t *testing.T) {
	good, err := os.ReadFile("../../fixtures/aop2/valid/spec_5_response.json")
	if err != nil {
		t.Fatal(err)
	}
	res := aoplint.Lint(good, aoplint.Options{Name: "resp.json"})
	if res.Failed(aoplint.Warning) || res.Protocol != "aop2" || res.Kind != "RESPONSE" || res.Messages != 1 {
		t.Errorf("valid RESPONSE: %+v", res)
	}
	bad := `{"a": 1, "a": 2}`
	r, err := aoplint.LintReader(strings.NewReader(bad), aoplint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Failed(aoplint.Error) || r.Errors == 0 || r.Name != "<input>" {
		t.Fatalf("duplicate key: %+v", r)
	}
	found := false
	for _, d := range r.Diagnostics {
		if d.Rule == "GEN-JSON-002" && d.Line == 1 && d.Column == 10 && d.Pointer == "/a" && d.Severity == aoplint.Error {
			found = true
		}
	}
	if !found {
		t.Errorf("no GEN-JSON-002 at 1:10 /a: %+v", r.Diagnostics)
	}
}

func TestLintFileAndCatalogue(t *testing.T) {
	res, err := aoplint.LintFile("../../fixtures/aof/invalid/comp002_tests_overflow.json", aoplint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed(aoplint.Error) || res.Diagnostics[0].Rule != "AOF-COMP-002" {
		t.Errorf("%+v", res)
	}
	if _, err := aoplint.LintFile("no/such/file.json", aoplint.Options{}); err == nil {
		t.Error("a missing file is an error")
	}
	if len(aoplint.Protocols()) != 5 || len(aoplint.Rules()) < 100 {
		t.Errorf("protocols %v, %d rules", aoplint.Protocols(), len(aoplint.Rules()))
	}
}

func TestUnknownProtocolAndCancel(t *testing.T) {
	for _, err := range []error{
		func() error {
			_, err := aoplint.LintReader(strings.NewReader("{}"), aoplint.Options{Protocol: "aop3"})
			return err
		}(),
		func() error {
			_, err := aoplint.LintFile("../../fixtures/aop2/valid/spec_5_response.json", aoplint.Options{Protocol: "aop3"})
			return err
		}(),
		func() error {
			p, err := aoplint.OpenProject(aoplint.ProjectOptions{NoConfig: true})
			if err != nil {
				return err
			}
			_, err = p.LintPaths(context.Background(), []string{"../../fixtures/aop2/valid"}, aoplint.Options{Protocol: "aop3"})
			return err
		}(),
	} {
		if !errors.Is(err, aoplint.ErrUnknownProtocol) {
			t.Errorf("error %v, want ErrUnknownProtocol", err)
		}
	}
	if _, err := aoplint.LintContext(context.Background(), strings.NewReader("{}"), aoplint.Options{TaskType: "nope"}); !errors.Is(err, aoplint.ErrUnknownTaskType) {
		t.Errorf("task type: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := aoplint.LintContext(ctx, strings.NewReader("{}\n{}\n"), aoplint.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("LintContext on a cancelled context: %v", err)
	}
	p, err := aoplint.OpenProject(aoplint.ProjectOptions{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.LintPaths(ctx, []string{"../../fixtures/aop2/valid"}, aoplint.Options{})
	if !errors.Is(err, context.Canceled) || len(rep.Files) != 0 {
		t.Errorf("LintPaths on a cancelled context: %d files, %v", len(rep.Files), err)
	}
}

func TestProjectRuleControlAndDataDir(t *testing.T) {
	p, err := aoplint.OpenProject(aoplint.ProjectOptions{NoConfig: true, Disable: []string{"AOF-DIR-*"}})
	if err != nil {
		t.Fatal(err)
	}
	// A file of an AOF data directory lints its directory; the rule it breaks is off.
	rep, err := p.LintPaths(context.Background(), []string{"../../fixtures/aof/invalid/datadir_status_mismatch/events/events.jsonl"}, aoplint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) < 5 || rep.Failed(aoplint.Error) {
		t.Errorf("%d files, %d errors", len(rep.Files), rep.Errors)
	}
	if _, err := aoplint.OpenProject(aoplint.ProjectOptions{NoConfig: true, Enable: []string{"NOPE-*"}}); err == nil {
		t.Error("an --enable pattern that matches no rule is accepted")
	}
	var b strings.Builder
	for _, f := range aoplint.Formats() {
		b.Reset()
		// text and github print findings only, and there are none.
		if err := rep.Write(&b, f); err != nil || (b.Len() == 0) != (f == "text" || f == "github") {
			t.Errorf("Write %s: %v, %d bytes", f, err, b.Len())
		}
	}
	if err := rep.Write(&b, "yaml"); err == nil {
		t.Error("Write yaml: no error")
	}
}
