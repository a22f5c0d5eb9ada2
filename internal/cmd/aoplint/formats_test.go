package aoplintcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	lintconfig "github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/output"
)

// TestFormatsOneList: the output formats of `aoplint --help`, `aoplint config
// schema`, the commented .aoplint.yaml of `aoplint config init`, shell completion
// and docs/configuration.md are output.Formats, the list the command accepts.
func TestFormatsOneList(t *testing.T) {
	want := append([]string(nil), output.Formats...)
	sort.Strings(want)
	check := func(where string, got []string) {
		t.Helper()
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s lists formats %v, aoplint takes %v", where, got, want)
		}
	}
	words := func(s string) []string {
		return regexp.MustCompile(`[a-z]+`).FindAllString(strings.ReplaceAll(s, " or ", ", "), -1)
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"aoplint", "--help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("aoplint --help: exit %d: %s", code, stderr.String())
	}
	m := regexp.MustCompile(`--format value, -f value +output format: ([a-z, ]+) \(default`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("aoplint --help has no --format line:\n%s", stdout.String())
	}
	check("aoplint --help", words(m[1]))

	stdout.Reset()
	if code := run([]string{"aoplint", "config", "schema"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("aoplint config schema: exit %d: %s", code, stderr.String())
	}
	var schema struct {
		Properties struct {
			Format struct {
				Enum []string `json:"enum"`
			} `json:"format"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &schema); err != nil {
		t.Fatal(err)
	}
	check("aoplint config schema", schema.Properties.Format.Enum)

	m = regexp.MustCompile(`# Output format when --format is not given: ([a-z, ]+)\.`).FindStringSubmatch(lintconfig.Template)
	if m == nil {
		t.Fatal("the configuration template does not list the formats")
	}
	check("aoplint config init's template", words(m[1]))

	// Shell completion offers them after --format and --output.
	for _, flag := range []string{"--format", "-o"} {
		stdout.Reset()
		if code := run([]string{"aoplint", flag, "--generate-bash-completion"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("completion after %s: exit %d: %s", flag, code, stderr.String())
		}
		check("completion after "+flag, strings.Fields(stdout.String()))
	}

	doc, err := os.ReadFile("../../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	row := ""
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "| `format` |") {
			row = l
		}
	}
	var inRow []string
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(strings.TrimPrefix(row, "| `format` |"), -1) {
		inRow = append(inRow, m[1])
	}
	check("docs/configuration.md's format row", inRow)
	m = regexp.MustCompile(`# default of --format: ([a-z, ]+)`).FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatal("docs/configuration.md's example does not list the formats")
	}
	check("docs/configuration.md's example", words(m[1]))
}
