package protocols_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks" // the checks' registry
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/protocols"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/mockagent"
	mockall "github.com/aopkit/aopkit/mockagent/all"
)

func ids(ps []*protocols.Protocol) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// TestOneList: the full list is lint/all's, in its order, and every registry
// a protocol's packages feed (reference agents, orchestrator sides, checks)
// holds exactly the listed protocols.
func TestOneList(t *testing.T) {
	var lintIDs []string
	for i, p := range all.Protocols {
		lintIDs = append(lintIDs, p.ID)
		if i < len(protocols.List) && protocols.List[i].Protocol != p {
			t.Errorf("List[%d] embeds %s's descriptor, lint/all lists %s there", i, protocols.List[i].ID, p.ID)
		}
	}
	if got := ids(protocols.List); !slices.Equal(got, lintIDs) {
		t.Fatalf("conform/protocols lists %v, lint/all %v", got, lintIDs)
	}
	for i, p := range protocols.List {
		if i >= len(mockall.Agents) || mockall.Agents[i] != p.Agent {
			t.Errorf("mockagent/all.Agents[%d] is not %s's agent", i, p.ID)
		}
	}
	if len(mockall.Agents) != len(protocols.List) {
		t.Errorf("mockagent/all lists %d agents, conform/protocols %d", len(mockall.Agents), len(protocols.List))
	}
	sorted := protocols.IDs()
	for where, got := range map[string][]string{
		"conform.Protocols":                   conform.Protocols,
		"lint.ProtocolIDs (the registry)":     lint.ProtocolIDs(),
		"mockagent.Protocols (mockagent/all)": mockagent.Protocols(),
		"orchside.Protocols":                  orchside.Protocols(),
	} {
		if !slices.Equal(got, sorted) {
			t.Errorf("%s = %v, the list has %v", where, got, sorted)
		}
	}
	for _, p := range protocols.List {
		if p.Drive == nil || p.EngineFaults == nil || len(p.EngineFaults()) == 0 {
			t.Errorf("%s: no engine driver or no engine faults", p.ID)
		}
		if a, err := mockagent.Lookup(p.ID); err != nil || a != p.Agent || a.Protocol != p.ID || len(a.Faults.List()) == 0 {
			t.Errorf("%s: the reference agent is not the registered one, or has no faults: %v", p.ID, err)
		}
		if !p.OrchestratorSide() {
			t.Errorf("%s: no orchestrator side", p.ID)
		}
		if len(p.Checks()) == 0 {
			t.Errorf("%s: no checks", p.ID)
		}
	}
	for _, c := range conform.Checks("") {
		if protocols.Lookup(c.Protocol) == nil {
			t.Errorf("check %s belongs to %q, which is not listed", c.ID, c.Protocol)
		}
	}
}

// TestNoHandWrittenList: outside a protocol's own folders (lint/<p>,
// lint/spec/<p>, conform/engine/<p>, mockagent/<p>, conform/checks/<p>*.go,
// conform/orchside/<p>*.go), no Go file but tests, generated code and the
// transcript generator's table names three or more protocol IDs as string
// literals: enumerations are derived from the list.
func TestNoHandWrittenList(t *testing.T) {
	root := "../.."
	dirs := map[string]bool{} // a protocol's folder name: "aop-output" is "aopoutput"
	quoted := map[string]bool{}
	for _, p := range protocols.List {
		dirs[strings.ReplaceAll(p.ID, "-", "")] = true
		quoted[p.ID] = true
	}
	allowed := map[string]bool{
		"lint/internal/transcriptgen/protocols.go": true, // the generator's sessions, one per protocol
	}
	own := func(rel string) bool {
		parts := strings.Split(rel, "/")
		switch {
		case len(parts) >= 3 && (parts[0] == "lint" || parts[0] == "mockagent") && dirs[parts[1]],
			len(parts) >= 4 && parts[0] == "lint" && parts[1] == "spec" && dirs[parts[2]],
			len(parts) >= 4 && parts[0] == "conform" && parts[1] == "engine" && dirs[parts[2]]:
			return true
		case len(parts) == 3 && parts[0] == "conform" && (parts[1] == "checks" || parts[1] == "orchside"):
			base := strings.TrimSuffix(parts[2], ".go")
			for d := range dirs {
				if base == d || strings.HasPrefix(base, d+"_") {
					return true
				}
			}
		}
		return false
	}
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "examples" || (strings.HasPrefix(name, ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || own(rel) || allowed[rel] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments)
		if err != nil || ast.IsGenerated(f) {
			return err
		}
		named := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && quoted[s] {
					named[s] = true
				}
			}
			return true
		})
		if len(named) >= 3 {
			found = append(found, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s names three or more protocol IDs by hand: derive them from the list (conform/protocols, lint/all)", f)
	}
}

// TestDocsNameTheList: aopconform's docs name the listed protocols where they
// list them (the --protocol flag, the bindings).
func TestDocsNameTheList(t *testing.T) {
	want := protocols.IDs()
	code := regexp.MustCompile("`([a-z0-9-]+)`")
	for _, tc := range []struct{ file, line string }{
		{"docs/aopconform.md", "| `--protocol` |"},
		{"docs/bindings.md", "(`"},
	} {
		b, err := os.ReadFile("../../" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, tc.line) {
				continue
			}
			var got []string
			for _, m := range code.FindAllStringSubmatch(l, -1) {
				if m[1] != "--protocol" {
					got = append(got, m[1])
				}
			}
			slices.Sort(got)
			if slices.Equal(got, want) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: no line with %q names the protocols %v", tc.file, tc.line, want)
		}
	}
}
