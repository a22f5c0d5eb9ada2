package config

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
)

func TestControl(t *testing.T) {
	diags := func(ids ...string) []lint.Diagnostic {
		var ds []lint.Diagnostic
		for _, id := range ids {
			ds = append(ds, lint.Diagnostic{Rule: id, Severity: lint.Error})
		}
		return ds
	}
	kept := func(c *Config, path string, ids ...string) string {
		var out []string
		for _, d := range c.For(path).Apply(diags(ids...)) {
			out = append(out, d.Rule+"="+d.Severity.String())
		}
		return strings.Join(out, " ")
	}
	load := func(src string) *Config {
		c, err := Parse(".aoplint.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const cfg = `rules:
  GEN-JSON-002: off
  GEN-JSON-003: warning
overrides:
  - files: ["legacy/**"]
    rules:
      GEN-JSON-004: off
`
	for _, tc := range []struct {
		name string
		rc   RuleControl
		path string
		want string
	}{
		{"none", RuleControl{}, "a.json", "GEN-JSON-001=error GEN-JSON-003=warning GEN-JSON-004=error"},
		{"enable undoes off, keeps severities", RuleControl{Enable: []string{"gen-json-002"}}, "a.json", "GEN-JSON-001=error GEN-JSON-002=error GEN-JSON-003=warning GEN-JSON-004=error"},
		{"enable reaches overrides", RuleControl{Enable: []string{"GEN-JSON-00?"}}, "legacy/x.json", "GEN-JSON-001=error GEN-JSON-002=error GEN-JSON-003=warning GEN-JSON-004=error"},
		{"disable a glob", RuleControl{Disable: []string{"GEN-JSON-00[13]"}}, "a.json", "GEN-JSON-004=error"},
		{"disable, comma list", RuleControl{Disable: []string{"GEN-JSON-001,GEN-JSON-004"}}, "a.json", "GEN-JSON-003=warning"},
		{"enable-only", RuleControl{EnableOnly: []string{"GEN-JSON-002", "GEN-JSON-003"}}, "legacy/x.json", "GEN-JSON-002=error GEN-JSON-003=warning"},
	} {
		c := load(cfg)
		if err := c.Control(tc.rc); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := kept(c, tc.path, "GEN-JSON-001", "GEN-JSON-002", "GEN-JSON-003", "GEN-JSON-004"); got != tc.want {
			t.Errorf("%s: kept %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		rc   RuleControl
		want string
	}{
		{RuleControl{Enable: []string{"NOPE-*"}}, `no rule matches "NOPE-*"`},
		{RuleControl{Disable: []string{"GEN-[JSON"}}, "bad rule pattern"},
		{RuleControl{Enable: []string{"GEN-JSON-002"}, Disable: []string{"GEN-JSON-*"}}, "both enabled and disabled"},
		{RuleControl{EnableOnly: []string{"GEN-JSON-002"}, Disable: []string{"GEN-JSON-001"}}, "--enable-only excludes"},
	} {
		err := Default().Control(tc.rc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.rc, err, tc.want)
		}
	}
}
