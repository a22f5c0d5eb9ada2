package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
)

const full = `format: sarif
fail-on: warning
baseline: .aoplint-baseline.json
files:
  include: ["msgs/**", "transcripts/*.jsonl"]
  exclude: "**/node_modules"
  unrecognised: skip
rules:
  GEN-JSON-005: off
  aop2-limit-001: error
overrides:
  - files: ["legacy/**"]
    protocol: aop2
    rules:
      AOP2-VERSION-001: warning
  - files: reports/search/**
    task-type: search
ignore:
  - path: msgs/old.json
    rule: AOP2-ENVELOPE-004
    pointer: /task
    reason: sent by the 2025 orchestrator
`

func TestParseFull(t *testing.T) {
	c, err := Parse("full.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if c.Format != "sarif" || c.FailOn != "warning" || c.Unrecognised != UnrecognisedSkip || c.Baseline != ".aoplint-baseline.json" {
		t.Errorf("scalars: %+v", c)
	}
	if len(c.Include) != 2 || len(c.Exclude) != 1 || c.Exclude[0] != "**/node_modules" {
		t.Errorf("files: %v %v", c.Include, c.Exclude)
	}
	if s := c.Rules["GEN-JSON-005"]; !s.Off || s.Line != 9 {
		t.Errorf("GEN-JSON-005: %+v", s)
	}
	if s, ok := c.Rules["AOP2-LIMIT-001"]; !ok || s.Severity == nil || *s.Severity != lint.Error {
		t.Errorf("rule IDs are case-insensitive and canonicalised: %+v", c.Rules)
	}
	if len(c.Overrides) != 2 || c.Overrides[0].Protocol != "aop2" || c.Overrides[1].TaskType != "search" || c.Overrides[1].Files[0] != "reports/search/**" {
		t.Errorf("overrides: %+v", c.Overrides)
	}
	if len(c.Ignores) != 1 || c.Ignores[0].Pointer != "/task" || c.Ignores[0].Line != 19 {
		t.Errorf("ignore: %+v", c.Ignores)
	}
}

func TestParseErrorsHaveLines(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unknown top key", "format: text\nformt: json\n", "x.yaml:2:1: unknown key \"formt\" in the configuration"},
		{"unknown nested key", "files:\n  exclude: []\n  exlude: [a]\n", "x.yaml:3:3: unknown key \"exlude\" in files"},
		{"unknown override key", "overrides:\n  - files: a\n    protocl: aop2\n", "x.yaml:3:5: unknown key \"protocl\" in an override"},
		{"bad format", "format: xml\n", "x.yaml:1:9: unknown format \"xml\""},
		{"bad rule", "rules:\n  NOPE-X-001: off\n", "x.yaml:2:3: no rule \"NOPE-X-001\""},
		{"bad setting", "rules:\n  GEN-JSON-005: maybe\n", "x.yaml:2:17: rule GEN-JSON-005: unknown setting \"maybe\""},
		{"bad protocol", "overrides:\n  - files: a\n    protocol: aop3\n", "x.yaml:3:15: unknown protocol \"aop3\""},
		{"bad task type", "overrides:\n  - files: a\n    task-type: poetry\n", "x.yaml:3:16: unknown task-type \"poetry\""},
		{"override without files", "overrides:\n  - protocol: aop2\n", "x.yaml:2:5: an override needs files"},
		{"ignore without rule", "ignore:\n  - path: a.json\n", "x.yaml:2:5: an ignore entry needs path and rule"},
		{"bad pointer", "ignore:\n  - {path: a.json, rule: GEN-JSON-005, pointer: task}\n", "x.yaml:2:49: pointer \"task\" is no JSON Pointer"},
		{"bad glob", "files:\n  exclude: ['a/[b']\n", "x.yaml:2:13: bad path pattern"},
		{"duplicate key", "format: text\nformat: json\n", "x.yaml:2:1: key \"format\" given twice"},
		{"not a mapping", "- a\n- b\n", "x.yaml:1:1: the configuration must be a mapping"},
		{"syntax", "format: [text\n", "x.yaml:"},
		{"two documents", "format: text\n---\nformat: json\n", "a second YAML document"},
		{"unrecognised", "files: {unrecognised: maybe}\n", "x.yaml:1:23: unknown files.unrecognised \"maybe\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error for %q", tc.yaml)
			}
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("not Errors: %T %v", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

func TestAllErrorsAtOnce(t *testing.T) {
	_, err := Parse("x.yaml", []byte("formt: a\nrules:\n  NOPE-A-001: off\n"))
	var es Errors
	if !errors.As(err, &es) || len(es) != 2 {
		t.Fatalf("want two errors, got %v", err)
	}
}

func TestEmptyIsDefault(t *testing.T) {
	for _, in := range []string{"", "\n# only a comment\n", "~\n"} {
		c, err := Parse("x.yaml", []byte(in))
		if err != nil || c.Unrecognised != UnrecognisedAuto || len(c.Rules) != 0 {
			t.Errorf("%q: %+v %v", in, c, err)
		}
	}
}

func TestFindUpward(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", ".aoplint.yml"), []byte("format: json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != filepath.Join(root, "a", ".aoplint.yml") {
		t.Fatalf("Find = %q, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b", ".aoplint.yaml"), []byte("format: json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ = Find(deep); got != filepath.Join(root, "a", "b", ".aoplint.yaml") {
		t.Errorf("the nearest file wins: %q", got)
	}
	c, err := Load(got)
	if err != nil || c.Dir != filepath.Join(root, "a", "b") {
		t.Errorf("Dir = %q, %v", c.Dir, err)
	}
}

func TestSelectedAndFor(t *testing.T) {
	c, err := Parse("x.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	c.Dir = t.TempDir()
	at := func(rel string) string { return filepath.Join(c.Dir, filepath.FromSlash(rel)) }
	for rel, want := range map[string]bool{
		"msgs/a.json":                      true,
		"msgs/deep/b.json":                 true,
		"transcripts/t.jsonl":              true,
		"transcripts/sub/t.jsonl":          false,
		"other/a.json":                     false,
		"msgs/node_modules/x/package.json": false,
		"msgs/node_modules":                false,
	} {
		if got := c.Selected(at(rel)); got != want {
			t.Errorf("Selected(%s) = %v, want %v", rel, got, want)
		}
	}
	if !c.Selected("/elsewhere/a.json") {
		t.Error("a file outside the configuration's directory is not its business")
	}
	fs := c.For(at("legacy/x.json"))
	if fs.Protocol != "aop2" || fs.Rules["AOP2-VERSION-001"].Severity == nil || !fs.Rules["GEN-JSON-005"].Off {
		t.Errorf("override merged over global rules: %+v", fs)
	}
	if _, leaked := c.Rules["AOP2-VERSION-001"]; leaked {
		t.Error("an override changed the global rules")
	}
	if fs := c.For(at("reports/search/r.txt")); fs.TaskType != "search" || fs.Protocol != "" {
		t.Errorf("task-type override: %+v", fs)
	}
	ds := []lint.Diagnostic{{Rule: "GEN-JSON-005", Severity: lint.Warning}, {Rule: "AOP2-VERSION-001", Severity: lint.Error}, {Rule: "AOP2-LIMIT-001", Severity: lint.Warning}}
	got := fs.Apply(append([]lint.Diagnostic(nil), ds...))
	if len(got) != 2 || got[1].Severity != lint.Error {
		t.Errorf("Apply: %+v", got)
	}
	got = c.For(at("legacy/x.json")).Apply(append([]lint.Diagnostic(nil), ds...))
	if len(got) != 2 || got[0].Severity != lint.Warning || got[1].Severity != lint.Error {
		t.Errorf("Apply with override: %+v", got)
	}
}

// TestSchemaAgrees: the JSON Schema names exactly the keys the parser knows, the
// template and a full configuration validate against it, and a misspelt key does not.
func TestSchemaAgrees(t *testing.T) {
	data, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range schema.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != strings.Join(Keys, ",") {
		t.Errorf("schema keys %v, parser keys %v", keys, Keys)
	}
	compiled, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(data))
	if err != nil {
		t.Fatal(err)
	}
	validate := func(name, doc string) []string {
		var v any
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res, err := compiled.Validate(gojsonschema.NewGoLoader(v))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var errs []string
		for _, e := range res.Errors() {
			errs = append(errs, e.String())
		}
		return errs
	}
	for name, doc := range map[string]string{"template": Template, "full": full} {
		if errs := validate(name, doc); len(errs) > 0 {
			t.Errorf("%s does not validate against the schema: %v", name, errs)
		}
		if _, err := Parse(name, []byte(doc)); err != nil {
			t.Errorf("%s does not parse: %v", name, err)
		}
	}
	if errs := validate("misspelt", "files:\n  exlude: [a]\n"); len(errs) == 0 {
		t.Error("the schema accepts an unknown key")
	}
}

// FuzzParse: no input makes Parse panic, and it returns a configuration or errors
// that carry the file name, never both or neither.
func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte(Template))
	f.Add([]byte("rules:\n  GEN-JSON-005: off\n"))
	f.Add([]byte("overrides:\n  - files: [a, b]\n    protocol: aos\n"))
	f.Add([]byte("ignore:\n  - {path: a, rule: GEN-JSON-001, pointer: /x}\n"))
	f.Add([]byte("&a [*a]"))
	f.Add([]byte("format: !!binary aGVsbG8=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data)
		if (c == nil) == (err == nil) {
			t.Fatalf("Parse returned %v and %v", c, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "f.yaml") {
			t.Fatalf("error without the file name: %v", err)
		}
	})
}
