// Package importedges asserts the layering of the conform/ and lint/ trees
// (docs/development.md, "Layers"): dependencies run one way.
package importedges

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/aopkit/aopkit/"

// pkg is one package of the module as `go list -deps` sees it (tests aside: the
// rules are about what the shipped code links).
type pkg struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
}

// listModule lists every package of the module, keyed by its path inside the
// module ("conform/harness"), its imports and dependencies the same way
// (packages outside the module dropped).
func listModule(t *testing.T) map[string]*pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	local := func(paths []string) []string {
		var in []string
		for _, p := range paths {
			if rel, ok := strings.CutPrefix(p, module); ok {
				in = append(in, rel)
			}
		}
		return in
	}
	all := map[string]*pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		p.ImportPath, p.Imports, p.Deps = rel, local(p.Imports), local(p.Deps)
		all[rel] = &p
	}
	return all
}

// under reports whether path is tree or inside it.
func under(path, tree string) bool { return path == tree || strings.HasPrefix(path, tree+"/") }

// runtime reports whether path is the conformance suite's runtime: the process
// layer (conform/agentio), the scenario driver (conform/harness), the reference
// engines (conform/engine/...) and the reference agent (mockagent/...).
func runtime(path string) bool {
	return under(path, "conform/agentio") || under(path, "conform/harness") || under(path, "conform/engine") || under(path, "mockagent")
}

// vocabulary reports whether path is the suite's vocabulary: package conform
// and its leaf conform/fault (the one fault type of engines and agent).
func vocabulary(path string) bool { return path == "conform" || path == "conform/fault" }

// edge is one forbidden dependency: from depends on to.
type edge struct{ from, to string }

func (e edge) String() string { return e.from + " → " + e.to }

// conformEdges lists the forbidden dependencies of the conform/ and mockagent/
// trees: the vocabulary (package conform) depends on nothing of the conformance
// suite or the reference agent; the runtime depends, inside conform/ and
// mockagent/, only on the vocabulary and the runtime (never on the checks, the
// runner, the orchestrator side, the reports: the judging).
func conformEdges(all map[string]*pkg) []edge {
	var bad []edge
	for path, p := range all {
		for _, dep := range p.Deps {
			inSuite := under(dep, "conform") || under(dep, "mockagent")
			switch {
			case path == "conform" && inSuite:
				bad = append(bad, edge{path, dep})
			case runtime(path) && inSuite && !vocabulary(dep) && !runtime(dep):
				bad = append(bad, edge{path, dep})
			}
		}
	}
	return bad
}

// lintEdges lists the forbidden dependencies of the lint/ tree: the linter
// depends on nothing of the conformance suite or the reference agent; a
// protocol's rules (the packages lint/all registers, bar those the driver itself
// depends on: lint/generic) never depend on the driver (lint/linter), and inside
// lint/ only lint/all imports them.
func lintEdges(all map[string]*pkg) []edge {
	var bad []edge
	var rules []string
	if reg, driver := all["lint/all"], all["lint/linter"]; reg != nil && driver != nil {
		for _, imp := range reg.Imports {
			if !slices.Contains(driver.Deps, imp) {
				rules = append(rules, imp)
			}
		}
	}
	for path, p := range all {
		if !under(path, "lint") {
			continue
		}
		for _, dep := range p.Deps {
			if under(dep, "conform") || under(dep, "mockagent") || (slices.Contains(rules, path) && dep == "lint/linter") {
				bad = append(bad, edge{path, dep})
			}
		}
		for _, imp := range p.Imports {
			if path != "lint/all" && slices.Contains(rules, imp) {
				bad = append(bad, edge{path, imp})
			}
		}
	}
	return bad
}

func sorted(es []edge) []edge {
	sort.Slice(es, func(i, j int) bool { return es[i].String() < es[j].String() })
	return es
}

// TestConformEdges: conformEdges finds nothing in the module.
func TestConformEdges(t *testing.T) {
	all := listModule(t)
	for _, p := range []string{"conform", "conform/harness", "conform/agentio", "conform/checks", "mockagent"} {
		if all[p] == nil {
			t.Fatalf("go list found no %s (%d packages)", p, len(all))
		}
	}
	for _, e := range sorted(conformEdges(all)) {
		t.Errorf("forbidden dependency %s (docs/development.md, \"Layers\")", e)
	}
}

// TestLintEdges: lintEdges finds nothing in the module.
func TestLintEdges(t *testing.T) {
	all := listModule(t)
	if all["lint/all"] == nil || all["lint/linter"] == nil || len(all["lint/all"].Imports) < 5 {
		t.Fatal("go list found no lint/all registering the protocols' rules, or no lint/linter")
	}
	for _, e := range sorted(lintEdges(all)) {
		t.Errorf("forbidden dependency %s (docs/development.md, \"Layers\")", e)
	}
}

// TestRulesFire: on a made-up module that has each forbidden edge, the rules
// name each of them and none of the allowed ones (a rule that can never fire
// would pass whatever the tree).
func TestRulesFire(t *testing.T) {
	mod := map[string]*pkg{
		"conform":             {Deps: []string{"conform/agentio", "internal/safetext"}},
		"conform/agentio":     {Deps: []string{"conform", "mockagent", "conform/engine/clock"}},
		"conform/harness":     {Deps: []string{"conform", "conform/agentio", "conform/checks"}},
		"conform/engine/aop2": {Deps: []string{"conform", "conform/harness", "lint/aop2", "lint/linter"}},
		"conform/runner":      {Deps: []string{"conform", "conform/checks", "conform/harness"}},
		"mockagent/aos":       {Deps: []string{"mockagent", "conform/orchside"}},
		"lint/all":            {Imports: []string{"lint/aop2", "lint/aos", "lint/generic"}},
		"lint/linter":         {Deps: []string{"lint", "lint/generic"}},
		"lint/generic":        {Deps: []string{"lint"}},
		"lint/aop2":           {Imports: []string{"lint/linter"}, Deps: []string{"lint", "lint/linter", "lint/generic"}},
		"lint/aos":            {Deps: []string{"lint", "lint/generic"}},
		"lint/config":         {Imports: []string{"lint/aos", "lint/generic"}, Deps: []string{"lint/aos", "lint/generic"}},
		"lint/internal/gen":   {Deps: []string{"conform"}},
	}
	want := []edge{
		{"conform", "conform/agentio"},
		{"conform/harness", "conform/checks"},
		{"mockagent/aos", "conform/orchside"},
	}
	if got := sorted(conformEdges(mod)); fmt.Sprint(got) != fmt.Sprint(sorted(want)) {
		t.Errorf("conformEdges:\n got %v\nwant %v", got, want)
	}
	want = []edge{
		{"lint/aop2", "lint/linter"},
		{"lint/config", "lint/aos"},
		{"lint/internal/gen", "conform"},
	}
	if got := sorted(lintEdges(mod)); fmt.Sprint(got) != fmt.Sprint(sorted(want)) {
		t.Errorf("lintEdges:\n got %v\nwant %v", got, want)
	}
}
