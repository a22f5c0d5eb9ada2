package difftest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// notProtocolTime lists the files that may parse a time themselves, and why:
// none of them reads a protocol's timestamp. Every protocol's timestamp dialect
// has one reader, its lint/spec/<protocol> package's ParseTime (built on
// lint/internal/isotime), and everything else (rules, checks, engines,
// orchestrator side, mockagent) calls that one.
var notProtocolTime = map[string]string{
	"lint/schema/draft7/format.go":      "JSON Schema's date, time and date-time formats (draft-07 §7.3.1), not a protocol dialect",
	"lint/aof/time.go":                  "only to tell a date without a time apart in the message, after spec.ParseTime refused it",
	"lint/linter/stream.go":             "a transcript record's own `at` (aopkit's transcript format)",
	"lint/internal/prototest/retain.go": "a transcript record's own `at` in a test kit",
	"conform/report/html.go":            "a transcript record's own `at` (conform.TimeFormat)",
	"conform/orchside/observe.go":       "mockagent's observation log (mockagent.ObservationTimeFormat)",
}

// TestOneTimestampReader fails when a file outside the protocols' knowledge
// packages parses a time by itself (time.Parse, time.ParseInLocation, or a
// function of lint/internal/isotime): a second reader of one dialect is how the
// six readers with six acceptance sets came about.
func TestOneTimestampReader(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var bad []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "examples" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if strings.HasPrefix(rel, "lint/spec/") || strings.HasPrefix(rel, "lint/internal/isotime/") {
			return nil // the readers themselves
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			reads := pkg.Name == "isotime" ||
				pkg.Name == "time" && (sel.Sel.Name == "Parse" || sel.Sel.Name == "ParseInLocation")
			if !reads {
				return true
			}
			seen[rel] = true
			if _, ok := notProtocolTime[rel]; !ok {
				bad = append(bad, rel+": "+pkg.Name+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s reads a time itself: read a protocol timestamp with lint/spec/<protocol>.ParseTime, or list the file in notProtocolTime with the reason it is no protocol's timestamp", b)
	}
	for rel := range notProtocolTime {
		if !seen[rel] {
			t.Errorf("notProtocolTime lists %s, which parses no time any more: take it off the list", rel)
		}
	}
}
