package main

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestActionWiring: action.yml passes every input run.sh reads and declares every
// input it uses (the script itself runs in testdata/script/aoplint_action.txtar).
func TestActionWiring(t *testing.T) {
	yml, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../action/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	envs := func(s string) []string {
		set := map[string]bool{}
		for _, m := range regexp.MustCompile(`INPUT_[A-Z_]+`).FindAllString(s, -1) {
			set[m] = true
		}
		var out []string
		for k := range set {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	if a, b := envs(string(yml)), envs(string(script)); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("action.yml passes %v, run.sh reads %v", a, b)
	}
	declared := map[string]bool{}
	inInputs := false
	for _, l := range strings.Split(string(yml), "\n") {
		switch {
		case l == "inputs:":
			inInputs = true
		case len(l) > 0 && l[0] != ' ':
			inInputs = false
		case inInputs && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.HasSuffix(l, ":"):
			declared[strings.TrimSuffix(strings.TrimSpace(l), ":")] = true
		}
	}
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(string(yml), -1) {
		if !declared[m[1]] {
			t.Errorf("action.yml uses inputs.%s, which it does not declare", m[1])
		}
	}
	if !strings.Contains(string(yml), `"$GITHUB_ACTION_PATH/action/run.sh"`) || !strings.Contains(string(yml), "using: composite") {
		t.Error("action.yml does not run action/run.sh as a composite action")
	}
	// Installed from the release (action/install.sh, testdata/script/
	// aoplint_action_install.txtar), cached, at a pinned version; SARIF through
	// the supported upload action.
	for _, want := range []string{`"$GITHUB_ACTION_PATH/action/install.sh"`, "uses: actions/cache@", "uses: github/codeql-action/upload-sarif@v4", "# release-version\n"} {
		if !strings.Contains(string(yml), want) {
			t.Errorf("action.yml lacks %s", want)
		}
	}
	for _, bad := range []string{"@latest", "'latest'", "github.action_ref", "--fail-on error"} {
		if strings.Contains(string(yml)+string(script), bad) {
			t.Errorf("action.yml or run.sh has %s", bad)
		}
	}
}
