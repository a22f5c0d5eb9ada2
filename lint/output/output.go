// Package output prints aoplint results: one file per format (text, json, sarif,
// junit, github, markdown). Every printer is deterministic: results and diagnostics arrive
// sorted and are printed in that order.
package output

import (
	"fmt"
	"io"
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

// Formats lists the format names.
var Formats = []string{"text", "json", "jsonl", "sarif", "junit", "github", "markdown"}

// Write prints r in format to w.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "text", "":
		return Text(w, r)
	case "json":
		return JSON(w, r)
	case "jsonl":
		return JSONL(w, r)
	case "sarif":
		return SARIF(w, r)
	case "junit":
		return JUnit(w, r)
	case "github":
		return GitHub(w, r)
	case "markdown":
		return Markdown(w, r)
	}
	return fmt.Errorf("unknown format %q (want one of %v)", format, Formats)
}

// pathOf returns the path a diagnostic belongs to (its own, or its file's).
func pathOf(f *linter.FileResult, d *lint.Diagnostic) string {
	if d.Path != "" {
		return d.Path
	}
	return f.Path
}
