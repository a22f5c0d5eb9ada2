// Package output prints aoplint results: one file per format (text, json, sarif,
// junit, github, markdown). Every printer is deterministic: results and diagnostics arrive
// sorted and are printed in that order.
package output

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"sort"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// Report is the input of every printer.
type Report struct {
	Files []linter.FileResult
	// Version of aoplint, for SARIF's tool.driver.version.
	Version string
	// Color turns on ANSI colour in the text format (a terminal, no NO_COLOR).
	Color bool
}

// Summary counts files and findings.
type Summary struct {
	Files    int `json:"files"`
	Messages int `json:"messages"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// NotPrinted counts the diagnostics past the per-input limit: in the counts
	// above, not in the output.
	NotPrinted int `json:"not_printed,omitempty"`
}

// Summarize counts the report.
func (r *Report) Summarize() Summary {
	s := Summary{Files: len(r.Files)}
	for i := range r.Files {
		e, w, n := r.Files[i].Counts()
		s.Errors += e
		s.Warnings += w
		s.Infos += n
		s.Messages += r.Files[i].Messages
		if nk := r.Files[i].NotKept; nk != nil {
			s.NotPrinted += nk.Total()
		}
	}
	return s
}

// Sort orders files by path and each file's diagnostics.
func (r *Report) Sort() {
	sort.SliceStable(r.Files, func(i, j int) bool { return r.Files[i].Path < r.Files[j].Path })
	for i := range r.Files {
		lint.SortDiagnostics(r.Files[i].Diagnostics)
	}
}

// printers are the formats by name, the first the default: the one list
// Formats and Write read.
var printers = []struct {
	name  string
	print func(io.Writer, *Report) error
}{
	{"text", Text}, {"json", JSON}, {"jsonl", JSONL}, {"sarif", SARIF},
	{"junit", JUnit}, {"github", GitHub}, {"markdown", Markdown},
}

// Formats lists the format names.
var Formats = func() []string {
	names := make([]string, len(printers))
	for i, p := range printers {
		names[i] = p.name
	}
	return names
}()

// Write prints r in format ("" is text) to w.
func Write(w io.Writer, format string, r *Report) error {
	if format == "" {
		format = printers[0].name
	}
	for _, p := range printers {
		if p.name == format {
			return p.print(w, r)
		}
	}
	return fmt.Errorf("unknown format %q (want one of %v)", format, Formats)
}

// diagnostics yields every diagnostic of r with its file, in order.
func (r *Report) diagnostics() iter.Seq2[*linter.FileResult, *lint.Diagnostic] {
	return func(yield func(*linter.FileResult, *lint.Diagnostic) bool) {
		for i := range r.Files {
			f := &r.Files[i]
			for j := range f.Diagnostics {
				if !yield(f, &f.Diagnostics[j]) {
					return
				}
			}
		}
	}
}

// eachDiagnostic writes what write makes of every diagnostic, in the report's
// order, to w through one buffer.
func eachDiagnostic(w io.Writer, r *Report, write func(bw *bufio.Writer, f *linter.FileResult, d *lint.Diagnostic)) error {
	bw := bufio.NewWriter(w)
	for f, d := range r.diagnostics() {
		write(bw, f, d)
	}
	return bw.Flush()
}

// pathOf returns the path a diagnostic belongs to (its own, or its file's).
func pathOf(f *linter.FileResult, d *lint.Diagnostic) string {
	if d.Path != "" {
		return d.Path
	}
	return f.Path
}

// relatedPath returns the path of a related place of d (its own, or d's).
func relatedPath(f *linter.FileResult, d *lint.Diagnostic, rel lint.Related) string {
	if rel.Path != "" {
		return rel.Path
	}
	return pathOf(f, d)
}

// bySeverity returns a format's word for s: error's, warning's, or info's (the
// word of any other severity).
func bySeverity(s lint.Severity, ofError, ofWarning, ofInfo string) string {
	switch s {
	case lint.Error:
		return ofError
	case lint.Warning:
		return ofWarning
	}
	return ofInfo
}
