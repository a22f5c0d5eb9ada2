// Package baseline records the findings of a run (aoplint --baseline-write FILE)
// so that later runs report only new ones (--baseline FILE). A finding is matched
// by its file's path, rule, JSON Pointer and a fingerprint of its message, never by
// line number: edits above a finding do not break the baseline. Entries that no
// longer occur are reported as stale (GEN-BASELINE-001).
package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Format names the file format, in its "aoplint-baseline" member.
const Format = 1

// Stale is the rule under which stale entries are reported.
var Stale = &lint.Rule{
	ID: "GEN-BASELINE-001", Title: "stale baseline entry", Severity: lint.Info,
	Spec: "docs/configuration.md §Baseline",
	Doc: "An entry of the baseline file (--baseline) matches no finding of this run: the finding was fixed, " +
		"or its file, rule, pointer or message changed. Rewrite the baseline with --baseline-write to drop it. " +
		"Entries for files not linted in this run are not judged.",
	Bad:  `{"path":"msgs/task.json","rule":"AOP2-LIMIT-001","pointer":"/payload","fingerprint":"4f1c..."}   (the task was fixed)`,
	Good: `(the entry removed by aoplint --baseline-write)`,
}

func init() { lint.Register(Stale) }

// Entry is one known finding.
type Entry struct {
	Path        string `json:"path"`
	Rule        string `json:"rule"`
	Pointer     string `json:"pointer"`
	Fingerprint string `json:"fingerprint"`
	Message     string `json:"message"` // for the reader; not matched
	Line        int    `json:"-"`       // of the entry in the baseline file
}

func (e *Entry) key() string {
	return e.Path + "\x00" + e.Rule + "\x00" + e.Pointer + "\x00" + e.Fingerprint
}

// Baseline is a loaded baseline file.
type Baseline struct {
	Path    string // as given
	dir     string // absolute directory entry paths are relative to
	Entries []Entry
	left    map[string][]int // key → indexes of entries not yet matched
}

// lineRef is a reference to a line in a message ("first on line 12", "line 3:4"),
// which moves when lines are added above it.
// Compiled on first use: most runs write or read no baseline.
var lineRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(lines?|columns?) \d+(:\d+)?`) })

// Fingerprint of a finding's message: references to line and column numbers are
// masked ("line 12" reads "line #"), so that a finding keeps its fingerprint when
// lines are added above it; every other part of the message counts.
func Fingerprint(rule, message string) string {
	masked := lineRef().ReplaceAllStringFunc(message, func(ref string) string {
		word, _, _ := strings.Cut(ref, " ")
		return strings.ToLower(word) + " #"
	})
	sum := sha256.Sum256([]byte(rule + "\x00" + masked))
	return hex.EncodeToString(sum[:8])
}

// relPath is path relative to dir in slash form (path itself when it cannot be).
func relPath(dir, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	r, err := filepath.Rel(dir, abs)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

func absDir(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.Dir(file)
	}
	return filepath.Dir(abs)
}

// File is a set of findings to write: each file's path and its diagnostics.
type File struct {
	Path        string
	Diagnostics []lint.Diagnostic
}

// Write writes a baseline of the findings to file, paths relative to its
// directory, one entry per line, sorted: a stable file that diffs well.
func Write(file string, files []File) (int, error) {
	dir := absDir(file)
	var entries []Entry
	for _, f := range files {
		p := relPath(dir, f.Path)
		for _, d := range f.Diagnostics {
			entries = append(entries, Entry{Path: p, Rule: d.Rule, Pointer: d.Pointer, Fingerprint: Fingerprint(d.Rule, d.Message), Message: d.Message})
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.key() != b.key() {
			return a.key() < b.key()
		}
		return a.Message < b.Message
	})
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"aoplint-baseline\": %d,\n  \"findings\": [", Format)
	for i, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			return 0, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		buf.Write(line)
	}
	if len(entries) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("]\n}\n")
	return len(entries), os.WriteFile(file, buf.Bytes(), 0o644)
}

// Load reads a baseline file.
func Load(file string) (*Baseline, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// Parse reads a baseline from data; file names it and locates its entries.
func Parse(file string, data []byte) (*Baseline, error) {
	root, _, err := jsonread.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not a baseline file: %v", file, err)
	}
	if v, _ := root.Get("aoplint-baseline").Int(); v != Format {
		return nil, fmt.Errorf("%s: not a baseline file: want \"aoplint-baseline\": %d (aoplint --baseline-write writes one)", file, Format)
	}
	list := root.Get("findings")
	if list == nil || list.Kind != jsonread.Array {
		return nil, fmt.Errorf("%s: \"findings\" must be an array", file)
	}
	pos := lint.NewLineIndex(data, 1, 1)
	b := &Baseline{Path: file, dir: absDir(file), left: map[string][]int{}}
	for i, it := range list.Items {
		line, _ := pos.Position(it.Offset)
		e := Entry{Path: it.Get("path").String(), Rule: it.Get("rule").String(), Pointer: it.Get("pointer").String(),
			Fingerprint: it.Get("fingerprint").String(), Message: it.Get("message").String(), Line: line}
		if it.Kind != jsonread.Object || e.Path == "" || e.Rule == "" || e.Fingerprint == "" {
			return nil, fmt.Errorf("%s:%d: finding %d needs path, rule and fingerprint", file, line, i)
		}
		b.left[e.key()] = append(b.left[e.key()], len(b.Entries))
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

// Filter drops the findings of one file that the baseline knows (each entry
// matches one finding) and returns the new ones.
func (b *Baseline) Filter(path string, ds []lint.Diagnostic) []lint.Diagnostic {
	p := relPath(b.dir, path)
	out := ds[:0]
	for _, d := range ds {
		k := (&Entry{Path: p, Rule: d.Rule, Pointer: d.Pointer, Fingerprint: Fingerprint(d.Rule, d.Message)}).key()
		if idx := b.left[k]; len(idx) > 0 {
			b.left[k] = idx[1:]
			continue
		}
		out = append(out, d)
	}
	return out
}

// Stale returns a GEN-BASELINE-001 finding, at the entry's line of the baseline
// file, for each entry that matched nothing and whose file was linted in this run
// (linted holds the run's paths) or no longer exists.
func (b *Baseline) Stale(linted []string) []lint.Diagnostic {
	seen := map[string]bool{}
	for _, p := range linted {
		seen[relPath(b.dir, p)] = true
	}
	var idx []int
	for _, list := range b.left {
		idx = append(idx, list...)
	}
	sort.Ints(idx)
	var out []lint.Diagnostic
	for _, i := range idx {
		e := b.Entries[i]
		if !seen[e.Path] {
			if _, err := os.Stat(filepath.Join(b.dir, filepath.FromSlash(e.Path))); err == nil {
				continue
			}
		}
		where := e.Path
		if e.Pointer != "" {
			where += " at " + e.Pointer
		}
		out = append(out, lint.Diagnostic{Path: b.Path, Rule: Stale.ID, Severity: Stale.Severity, Spec: Stale.Spec, Line: e.Line, Column: 5,
			Message: fmt.Sprintf("stale baseline entry: %s %s no longer occurs; rewrite the baseline with --baseline-write", e.Rule, where)})
	}
	return out
}
