package aos_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// paramsOnlyLint are the rules under /params that lint judges and
// spec.ParamsProblem (what the reference guardian answers -32602 to) deliberately
// does not: base64 file bytes (AOS-PART-002).
var paramsOnlyLint = []string{"AOS-PART-002"}

// TestParamsAgree: the params of an AOS request are judged twice, by lint (the
// JSON Schema of its kind, AOS-SCHEMA-001, and the part/source/time rules) and by
// spec.ParamsProblem (the reference guardian's -32602). One cannot replace the
// other without changing lint's diagnostics, so this test keeps them agreeing on
// every request fixture of the step methods and ping: valid for one iff valid for
// the other, apart from the rules only lint has (paramsOnlyLint) and a dialect
// lint reads otherwise (a ping's timestamp at the top level). protocols/MCP and
// protocols/A2A are not compared: their params are the wrapped message, which
// lint judges with the wrapped protocol's rules (AOS-WRAP-*, and the dialects of
// its upstream documents) and ParamsProblem only as "an object".
func TestParamsAgree(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "aos", "*", "*.json*"))
	dialect := map[string]bool{"dialect_ping_toplevel_timestamp.json": true}
	compared, invalid := 0, 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") || dialect[filepath.Base(f)] {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// One message per file (.json), or one per line (.jsonl: diagnostics by line).
		msgs := map[int][]byte{0: data}
		if strings.HasSuffix(f, ".jsonl") {
			msgs = map[int][]byte{}
			for i, line := range bytes.Split(data, []byte("\n")) {
				msgs[i+1] = line
			}
		}
		diags := linter.LintBytes(f, data, linter.Options{}).Diagnostics
		for line, msg := range msgs {
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(msg))
			dec.UseNumber()
			if dec.Decode(&m) != nil {
				continue
			}
			if r, ok := m["msg"].(map[string]any); ok && m["aopkit"] != nil {
				m = r // a transcript record
			}
			method, _ := m["method"].(string)
			params, ok := m["params"].(map[string]any)
			if !spec.IsMethod(method) || method == spec.MethodMCP || method == spec.MethodA2A || !ok {
				continue
			}
			compared++
			problem := spec.ParamsProblem(method, params)
			if problem != nil {
				invalid++
			}
			var lintErrs []string
			for _, d := range diags {
				if (line > 0 && d.Line != line) || d.Severity != lint.Error || !strings.HasPrefix(d.Pointer, "/params") || strings.HasPrefix(d.Rule, "AOS-SEQ-") {
					continue
				}
				only := false
				for _, p := range paramsOnlyLint {
					only = only || strings.HasPrefix(d.Rule, p)
				}
				if !only {
					lintErrs = append(lintErrs, d.Rule+" at "+d.Pointer)
				}
			}
			if (problem == nil) != (len(lintErrs) == 0) {
				t.Errorf("%s (line %d): spec.ParamsProblem says %v, lint says %v", filepath.Base(f), line, problem, lintErrs)
			}
		}
	}
	t.Logf("%d requests compared, %d with invalid params", compared, invalid)
	if compared < 30 || invalid == 0 {
		t.Errorf("%d requests compared, %d with invalid params", compared, invalid)
	}
}
