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
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint"
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

// MaxFile bounds a baseline file: Load refuses a larger one, and Write refuses
// to write one it could not read back. At about 250 bytes an entry it holds some
// 250,000 findings.
const MaxFile = 64 << 20

// Write writes a baseline of the findings to file, paths relative to its
// directory, one entry per line, sorted: a stable file that diffs well. It never
// writes through a symbolic link (safefile.WriteFile), and refuses (writing
// nothing) a baseline larger than MaxFile, which Load would refuse.
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
		if buf.Len() > MaxFile {
			return 0, fmt.Errorf("%s: not written: a baseline of %d findings is larger than the %d MiB aoplint reads back (fix or ignore findings in .aoplint.yaml first, or write one baseline per directory)", file, len(entries), MaxFile>>20)
		}
	}
	if len(entries) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("]\n}\n")
	if err := safefile.WriteFile(file, buf.Bytes(), 0o644, false); err != nil {
		return 0, fmt.Errorf("baseline not written: %w", err)
	}
	return len(entries), nil
}

// Load reads a baseline file: a regular file of at most MaxFile bytes.
func Load(file string) (*Baseline, error) {
	data, err := safefile.ReadFile(file, MaxFile)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// Parse reads a baseline from data; file names it and locates its entries. The
// findings are decoded one at a time (a baseline may list more values than the
// protocol reader takes in one document), each located by its line.
func Parse(file string, data []byte) (*Baseline, error) {
	notBaseline := func(why string) error {
		return fmt.Errorf("%s: not a baseline file: %s", file, why)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil {
		return nil, notBaseline(err.Error())
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, notBaseline("not a JSON object")
	}
	pos := lint.NewLineIndex(data, 1, 1)
	b := &Baseline{Path: file, dir: absDir(file), left: map[string][]int{}}
	version, findings := false, false
	var entryErr error
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notBaseline(err.Error())
		}
		key, _ := tok.(string)
		switch {
		case key == "aoplint-baseline":
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, notBaseline(err.Error())
			}
			n, _ := v.(json.Number)
			version = n.String() == fmt.Sprint(Format)
		case key == "findings" && !findings:
			findings = true
			if tok, err := dec.Token(); err != nil {
				return nil, notBaseline(err.Error())
			} else if d, ok := tok.(json.Delim); !ok || d != '[' {
				entryErr = fmt.Errorf("%s: \"findings\" must be an array", file)
				if ok { // an object: skip it whole
					if err := skipRest(dec); err != nil {
						return nil, notBaseline(err.Error())
					}
				}
				continue
			}
			for i := 0; dec.More(); i++ {
				off := int(dec.InputOffset())
				for off < len(data) && (data[off] == ',' || data[off] == ' ' || data[off] == '\t' || data[off] == '\r' || data[off] == '\n') {
					off++
				}
				line, _ := pos.Position(off)
				var e Entry
				err := dec.Decode(&e)
				if err != nil || e.Path == "" || e.Rule == "" || e.Fingerprint == "" {
					if _, syntax := err.(*json.SyntaxError); syntax {
						return nil, notBaseline(err.Error())
					}
					if entryErr == nil {
						entryErr = fmt.Errorf("%s:%d: finding %d needs path, rule and fingerprint (strings)", file, line, i)
					}
					continue
				}
				e.Line = line
				b.left[e.key()] = append(b.left[e.key()], len(b.Entries))
				b.Entries = append(b.Entries, e)
			}
			if _, err := dec.Token(); err != nil { // ]
				return nil, notBaseline(err.Error())
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, notBaseline(err.Error())
			}
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return nil, notBaseline(err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notBaseline("data after the JSON object")
	}
	if !version {
		return nil, notBaseline(fmt.Sprintf("want \"aoplint-baseline\": %d (aoplint --baseline-write writes one)", Format))
	}
	if !findings {
		return nil, fmt.Errorf("%s: \"findings\" must be an array", file)
	}
	if entryErr != nil {
		return nil, entryErr
	}
	return b, nil
}

// skipRest skips the rest of the array or object whose opening token dec just
// read.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
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
