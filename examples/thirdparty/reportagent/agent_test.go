package reportagent

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/pkg/aoplint"
)

// TestReportLints runs the agent and lints its report with the aoplint library, as
// aoplint --protocol aop-output would.
func TestReportLints(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	now := func() time.Time { return time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC) }
	if err := Run(context.Background(), strings.NewReader("count these four words\n"), &out, dir, now, 0); err != nil {
		t.Fatal(err)
	}
	res := aoplint.Lint(out.Bytes(), aoplint.Options{Name: "report.txt", Protocol: "aop-output", BaseDir: dir})
	if res.Failed(aoplint.Warning) {
		for _, d := range res.Diagnostics {
			t.Errorf("%s:%d:%d: %s: %s [%s]", res.Name, d.Line, d.Column, d.Severity, d.Message, d.Rule)
		}
	}
	if !strings.Contains(out.String(), "- 4 words counted") {
		t.Errorf("report:\n%s", out.String())
	}
}
