package aopoutput

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

const specDetails = "aop-output-1.0.0 §AOP Format Specification ([AOP:DETAILS_FILE] {path to full output file, or \"none\"}); §Validation Checklist"

// DetailsPath: a path or none.
var DetailsPath = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-DETAILS-001", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Spec: specDetails, Run: checkDetailsPath})

// DetailsExists: the named file exists.
var DetailsExists = ruleDocs.Rule(lint.Rule{
	ID: "AOPOUT-DETAILS-002", Protocol: ID, Kinds: reportKinds, Severity: lint.Warning,
	Spec: specDetails + "; §Validation Checklist (\"Details file written if needed\")",
	Run:  checkDetailsExists,
})

// DetailsValid: a JSON details file is a valid details file.
var DetailsValid = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-DETAILS-003", Protocol: ID, Kinds: reportKinds, Severity: lint.Error, Run: checkDetailsValid})

// DetailsEscape: the path stays in the agent's working directory.
var DetailsEscape = ruleDocs.Rule(lint.Rule{
	ID: "AOPOUT-DETAILS-004", Protocol: ID, Kinds: reportKinds, Severity: lint.Warning,
	Spec: specDetails + "; aopkit bindings (the details file lies inside the agent's scratch directory)",
	Run:  checkDetailsEscape,
})

func init() { lint.Register(DetailsPath, DetailsExists, DetailsValid, DetailsEscape) }

func checkDetailsEscape(p *lint.Pass) {
	m, path := detailsPath(parsed(p))
	if path == "" {
		return
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(path)))
	switch {
	case clean == ".." || strings.HasPrefix(clean, "../"):
		reportAt(p, lint.Warning, m.ValOff, "/detailsFile", "details file %s climbs out of the working directory: write the details inside it (such as .claude/cache/agent-outputs/)", quote(path))
	case strings.HasPrefix(clean, "/etc/") || strings.HasPrefix(clean, "/usr/") || strings.HasPrefix(clean, "/bin/") || strings.HasPrefix(clean, "/proc/") || strings.HasPrefix(clean, "/dev/"):
		reportAt(p, lint.Warning, m.ValOff, "/detailsFile", "details file %s lies in a system directory: write the details in the agent's working directory", quote(path))
	}
}

// detailsPath returns the DETAILS_FILE value when it is a usable path ("" for none,
// a missing marker or a value DETAILS-001 rejects).
func detailsPath(r *report) (*marker, string) {
	m := r.First("DETAILS_FILE")
	if m == nil || m.Value == "" || m.Value == "none" || spec.HasJSSpace(m.Value) || strings.ContainsAny(m.Value, "{}") {
		return m, ""
	}
	v := strings.Trim(m.Value, "\"'`")
	if v == "none" || v == "" {
		return m, ""
	}
	return m, v
}

func checkDetailsPath(p *lint.Pass) {
	m := parsed(p).First("DETAILS_FILE")
	if m == nil {
		return
	}
	v := m.Value
	switch {
	case v == "":
		reportAt(p, lint.Error, m.Off, "/detailsFile", "[AOP:DETAILS_FILE] is empty: give the path of the full output file, or none")
	case strings.EqualFold(strings.Trim(v, "\"'`"), "none") && v != "none":
		reportAt(p, lint.Warning, m.ValOff, "/detailsFile", "write none as the bare word none, not %s: parsers compare it literally", v)
	case strings.ContainsAny(v, "{}") || strings.Contains(v, "path to"):
		reportAt(p, lint.Error, m.ValOff, "/detailsFile", "[AOP:DETAILS_FILE] %s is the template, not a path: write the file's path, or none", quote(v))
	case spec.HasJSSpace(v):
		reportAt(p, lint.Error, m.ValOff, "/detailsFile", "details file path %s contains a space: the spec's parser reads the path as one word and gets %s; use a path without spaces", quote(v), quote(spec.JSWord(v)))
	case v[0] == '"' || v[0] == '\'' || v[0] == '`':
		reportAt(p, lint.Warning, m.ValOff, "/detailsFile", "details file path %s is quoted: the quotes become part of the path; write it bare", v)
	default:
		return
	}
	p.Claim("/detailsFile")
}

// resolve returns the details file's path on disk ("" when the run has no base
// directory), the paths tried and whether the agent's directory is known
// (lint.Options.DetailsRoot). A relative path is the agent's: relative to the
// directory it ran in, the root when it is known; else usually the project root,
// which is aoplint's working directory or an ancestor of the report's, and the
// report's own directory is tried first. The first candidate that exists wins;
// when none does, the first is returned with every candidate tried.
func resolve(p *lint.Pass, path string) (full string, tried []string, rooted bool) {
	if p.Msg.Opts == nil {
		return "", nil, false
	}
	root := p.Msg.Opts.DetailsRoot
	if root == "" && (p.Msg.Opts.BaseDir == "" || p.Msg.From != "") {
		return "", nil, false // not a file on disk: stdin, or a transcript record (whose paths are the agent's)
	}
	if strings.HasPrefix(path, "~") {
		return "", nil, false // relative to someone's home: not checked
	}
	if filepath.IsAbs(path) {
		c := filepath.Clean(path)
		return c, []string{c}, root != ""
	}
	if root != "" {
		c := filepath.Join(root, filepath.FromSlash(path))
		return c, []string{c}, true
	}
	rel := filepath.FromSlash(path)
	seen := map[string]bool{}
	try := func(dir string) {
		c := filepath.Join(dir, rel)
		if abs, err := filepath.Abs(c); err == nil && !seen[abs] {
			seen[abs] = true
			tried = append(tried, c)
		}
	}
	try(p.Msg.Opts.BaseDir)
	try(".")
	// The parents, spelled as the report's path was (relative stays relative).
	for dir, n := filepath.Clean(p.Msg.Opts.BaseDir), 0; n < 8; n++ {
		up := filepath.Dir(dir)
		if up == dir || filepath.Base(dir) == ".." {
			break
		}
		dir = up
		try(dir)
	}
	for _, c := range tried {
		if _, err := os.Stat(c); err == nil {
			return c, tried, false
		}
	}
	return tried[0], tried, false
}

func checkDetailsExists(p *lint.Pass) {
	m, path := detailsPath(parsed(p))
	if path == "" {
		return
	}
	full, tried, rooted := resolve(p, path)
	if full == "" {
		return
	}
	st, err := os.Stat(full)
	switch {
	case err != nil && rooted:
		reportAt(p, lint.Error, m.ValOff, "/detailsFile", "details file %s does not exist (looked for %s, in the directory the agent ran in): write the file before returning the report, or write none", quote(path), filepath.ToSlash(full))
	case err != nil:
		// Where the report is linted is not where the agent ran: whether the file
		// is there depends on the machine, not on the report (a warning).
		looked := make([]string, len(tried))
		for i, t := range tried {
			looked[i] = filepath.ToSlash(t)
		}
		reportAt(p, lint.Warning, m.ValOff, "/detailsFile", "details file %s is not found (looked for %s: relative to the report's directory, the working directory and the report's parent directories): write the file before returning the report, or write none; --details-root DIR (the directory the agent ran in) makes this an error", quote(path), strings.Join(looked, ", "))
	case st.IsDir():
		reportAt(p, lint.Error, m.ValOff, "/detailsFile", "details file %s is a directory: name the file itself", quote(path))
	}
}

// MaxDetails bounds the details file aoplint reads for DETAILS-003.
const MaxDetails = 16 << 20

func checkDetailsValid(p *lint.Pass) {
	m, path := detailsPath(parsed(p))
	if path == "" {
		return
	}
	full, _, _ := resolve(p, path)
	if full == "" || p.Msg.From != "" {
		return // a transcript holds the details file's own record, linted as such
	}
	if p.Msg.Opts.LintFile == nil {
		return // no driver lent its file linter (lint.Options.LintFile)
	}
	st, err := os.Stat(full)
	if err != nil || st.IsDir() {
		return // DETAILS-002
	}
	if !strings.EqualFold(filepath.Ext(full), ".json") && !startsWithBrace(full) {
		return
	}
	if st.Size() > MaxDetails {
		reportAt(p, lint.Error, m.ValOff, "/detailsFile", "details file %s is %d bytes, more than aoplint reads (%d MiB): it was not checked", quote(path), st.Size(), MaxDetails>>20)
		return
	}
	res, err := p.Msg.Opts.LintFile(full, ID)
	if err != nil {
		reportAt(p, lint.Error, m.ValOff, "/detailsFile", "details file %s cannot be read: %v", quote(path), err)
		return
	}
	sev := lint.Info
	var related []lint.Related
	errs := 0
	for _, d := range res.Diagnostics {
		if d.Severity < lint.Warning {
			continue
		}
		if d.Severity > sev {
			sev = d.Severity
		}
		if d.Severity == lint.Error {
			errs++
		}
		if len(related) < 20 {
			related = append(related, lint.Related{Path: filepath.ToSlash(d.Path), Line: d.Line, Column: d.Column, Pointer: d.Pointer,
				Message: fmt.Sprintf("%s: %s [%s]", d.Severity, d.Message, d.Rule)})
		}
	}
	if len(related) == 0 {
		return
	}
	n := 0
	for _, d := range res.Diagnostics {
		if d.Severity >= lint.Warning {
			n++
		}
	}
	what := "is not a valid details file"
	if errs == 0 {
		what = "has warnings as a details file"
	}
	line, col := p.Msg.Pos.Position(m.ValOff)
	p.ReportAtf(sev, lint.Related{Line: line, Column: col, Pointer: "/detailsFile"}, related, "details file %s %s (%d %s; see the related locations): fix the file or the path", quote(path), what, n, plural2(n, "problem"))
}

func plural2(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}

// startsWithBrace reports whether the regular file at path starts with "{" (a
// FIFO or a device is not waited on: safefile).
func startsWithBrace(path string) bool {
	f, err := safefile.Open(path, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	b := bytes.TrimLeft(bytes.TrimPrefix(buf[:n], []byte("\xEF\xBB\xBF")), " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}
