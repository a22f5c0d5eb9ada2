package output

import (
	"bufio"
	"fmt"
	"io"
)

// Text prints one line per diagnostic, like a compiler:
//
//	path:line:col: severity: message [RULE]
//
// followed by indented lines for related places (witnesses).
func Text(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for i := range r.Files {
		f := &r.Files[i]
		for j := range f.Diagnostics {
			d := &f.Diagnostics[j]
			fmt.Fprintf(bw, "%s:%d:%d: %s: %s [%s]\n", pathOf(f, d), d.Line, d.Column, d.Severity, d.Message, d.Rule)
			for _, rel := range d.Related {
				p := rel.Path
				if p == "" {
					p = pathOf(f, d)
				}
				fmt.Fprintf(bw, "\t%s:%d:%d: related: %s\n", p, rel.Line, rel.Column, rel.Message)
			}
		}
	}
	return bw.Flush()
}

// SummaryLine is what the text format prints at the end (on stderr).
func SummaryLine(s Summary) string {
	return fmt.Sprintf("%d %s, %d %s, %d info in %d %s (%d %s)",
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"), s.Infos,
		s.Files, plural(s.Files, "file", "files"), s.Messages, plural(s.Messages, "message", "messages"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
