package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	_ "github.com/aopkit/aopkit/lint/orchmsg"
)

// TestOrchmsgIDOneAnswer: aoplint and aopconform give one answer on an orchmsg
// id (the spec: `id: string; // UUID for correlation`): format/uuid-ids (a
// SHOULD) fails exactly the ids aoplint warns about (ORCH-BASE-003, a warning:
// the type is string), and format/base-fields (a MUST) passes any non-empty
// string id, as aoplint reports no error on it. Before, aopconform passed
// "request-1796596858957" without a word.
func TestOrchmsgIDOneAnswer(t *testing.T) {
	for _, tt := range []struct {
		id   string
		uuid bool
	}{
		{"123e4567-e89b-12d3-a456-426614174000", true},
		{"req-123e4567-e89b-12d3-a456-426614174000", true},
		{"evt-9b2f0c1e-4d3a-4f6b-8e7c-1a2b3c4d5e6f", true},
		{"request-1796596858957", false},
		{"evt-1", false},
		{"1", false},
		{"req-123e4567-e89b-12d3-a456-42661417400", false},
	} {
		msg := fmt.Sprintf(`{"type":"event:log","id":%q,"timestamp":"2026-02-04T14:30:00Z","payload":{"level":"info","message":"started"}}`, tt.id)
		res, err := linter.LintStream("m.json", strings.NewReader(msg), linter.Options{})
		if err != nil {
			t.Fatal(err)
		}
		warned, errs := false, 0
		for _, d := range res.Diagnostics {
			warned = warned || (d.Rule == "ORCH-BASE-003" && d.Severity == lint.Warning)
			if d.Severity == lint.Error {
				errs++
			}
		}
		s := newSession(&conform.Attempt{}).add("agent", "stdout", "event:log", 0, msg).s
		ids := run(t, "orchmsg/format/uuid-ids", s)
		base := run(t, "orchmsg/format/base-fields", s)
		if warned != !tt.uuid || (ids.Verdict == conform.Fail) != !tt.uuid || ids.Verdict != conform.Fail && ids.Verdict != conform.Pass {
			t.Errorf("id %q: aoplint ORCH-BASE-003 warning %v, format/uuid-ids %s (%s); want both to say UUID %v", tt.id, warned, ids.Verdict, ids.Message, tt.uuid)
		}
		if errs != 0 || base.Verdict != conform.Pass {
			t.Errorf("id %q: aoplint %d errors, format/base-fields %s (%s); want no error and PASS", tt.id, errs, base.Verdict, base.Message)
		}
	}
}
