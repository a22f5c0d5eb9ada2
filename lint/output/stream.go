package output

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// Streamable reports whether a format can be printed file by file, as results
// arrive (text, jsonl and github), instead of as one document at the end.
func Streamable(format string) bool {
	switch format {
	case "text", "", "jsonl", "github":
		return true
	}
	return false
}

// Stream prints the results of a streamable format one file at a time, so that
// memory holds one file's results, not the run's. Files must arrive in report
// order (sorted by path, as Report.Sort orders them); the output is then the same
// as Write's over the whole report.
type Stream struct {
	bw     *bufio.Writer
	format string
	sum    Summary
	// Color turns on ANSI colour in the text format (a terminal, no NO_COLOR).
	Color bool
}

// NewStream starts a stream in a streamable format. None of them prints the
// version of aoplint (only the whole-report formats, SARIF and Markdown, do), so a
// stream needs none.
func NewStream(w io.Writer, format string) *Stream {
	return &Stream{bw: bufio.NewWriterSize(w, 64<<10), format: format}
}

// File prints one file's results and counts them.
func (s *Stream) File(f linter.FileResult) error {
	lint.SortDiagnostics(f.Diagnostics)
	one := &Report{Files: []linter.FileResult{f}, Color: s.Color}
	sum := one.Summarize()
	s.sum.NotPrinted += sum.NotPrinted
	s.sum.Files += sum.Files
	s.sum.Messages += sum.Messages
	s.sum.Errors += sum.Errors
	s.sum.Warnings += sum.Warnings
	s.sum.Infos += sum.Infos
	var err error
	if s.format == "jsonl" {
		err = jsonlFile(s.bw, &f)
	} else {
		err = Write(s.bw, s.format, one)
	}
	if err != nil {
		return err
	}
	// A file's results leave at once: a long run shows its findings as it goes.
	return s.bw.Flush()
}

// Close ends the stream (jsonl prints its summary line) and returns the counts.
func (s *Stream) Close() (Summary, error) {
	if s.format == "jsonl" {
		if err := jsonlSummary(s.bw, s.sum); err != nil {
			return s.sum, err
		}
	}
	return s.sum, s.bw.Flush()
}

// JSONL prints JSON lines: one line per file, in the shape of one entry of the
// json format's "files", then one line {"summary":{…}}.
func JSONL(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for i := range r.Files {
		if err := jsonlFile(bw, &r.Files[i]); err != nil {
			return err
		}
	}
	if err := jsonlSummary(bw, r.Summarize()); err != nil {
		return err
	}
	return bw.Flush()
}

func jsonlFile(w io.Writer, f *linter.FileResult) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if f.Diagnostics == nil {
		g := *f
		g.Diagnostics = []lint.Diagnostic{}
		f = &g
	}
	return enc.Encode(f)
}

func jsonlSummary(w io.Writer, s Summary) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Summary Summary `json:"summary"`
	}{s})
}
