package aoplintcmd

import (
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/project"
)

// lintInputs yields results in report order whatever the argument order: files,
// data directories (whose results come at once) and the same file twice.
func TestLintInputsReportOrder(t *testing.T) {
	args := []string{"../../../fixtures/aof", "../../../fixtures/aop2/valid", "../../../fixtures/aof/valid", "../../../fixtures/aop2"}
	var got []string
	proj, err := project.Open(project.Options{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	optsFor := func(string) linter.Options { return linter.Options{} }
	errs := lintInputs(args, proj, optsFor, 2, strings.NewReader(""), func(r linter.FileResult) { got = append(got, r.Path) })
	if len(errs) > 0 || len(got) < 10 {
		t.Fatalf("%d results, errors %v", len(got), errs)
	}
	want := append([]string(nil), got...)
	sort.SliceStable(want, func(i, j int) bool { return want[i] < want[j] })
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results not in report order:\n%s", strings.Join(got, "\n"))
	}
}
