package aoplint_test

import (
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
