package aop2

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
)

// TestAuditRecordsMatchUpstreamSchema: every audit record the engine writes
// validates against upstream's audit_record.schema.json (testdata copy).
func TestAuditRecordsMatchUpstreamSchema(t *testing.T) {
	schema, err := gojsonschema.NewSchema(gojsonschema.NewReferenceLoader("file://" + mustAbs(t, "testdata/audit_record.schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"happy-path", "rollback-failed", "fallback-first-error-then-all-errors", "version-fallback", "payload-too-many-inputs", "heartbeat-warn", "delegation-depth"} {
		var sc *scenario
		for i := range scenarios {
			if scenarios[i].name == name {
				sc = &scenarios[i]
			}
		}
		t.Run(name, func(t *testing.T) {
			var setup func(string)
			if sc.setup != nil {
				setup = func(s string) { sc.setup(t, s) }
			}
			r := runInProcess(t, name, sc.fault, taskWith(t, sc.set), setup, sc.steps, sc.engineFault)
			if len(r.res.AuditFiles) == 0 {
				t.Fatal("no audit records")
			}
			for _, f := range r.res.AuditFiles {
				data, err := os.ReadFile(filepath.Join(r.res.AuditDir, f))
				if err != nil {
					t.Fatal(err)
				}
				res, err := schema.Validate(gojsonschema.NewBytesLoader(data))
				if err != nil {
					t.Fatal(err)
				}
				if !res.Valid() {
					var msgs []string
					for _, e := range res.Errors() {
						msgs = append(msgs, e.String())
					}
					t.Errorf("%s: %s", f, strings.Join(msgs, "; "))
				}
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
