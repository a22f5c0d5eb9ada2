package output

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/internal/safetext"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// Text prints one line per diagnostic, like a compiler:
//
//	path:line:col: severity: message [RULE]
//
// followed by indented lines for related places (witnesses). What the input put in a
// path or a message (a file name, a quoted key) is printed so that it cannot forge a
// line or reach the terminal: a path with an unprintable character (a newline, an
// escape, invalid UTF-8) is printed Go-quoted, and such characters in a message are
// escaped (\n, \x1b, \u202e). With r.Color the severity is coloured.
func Text(w io.Writer, r *Report) error {
	return eachDiagnostic(w, r, func(bw *bufio.Writer, f *linter.FileResult, d *lint.Diagnostic) {
		fmt.Fprintf(bw, "%s:%d:%d: %s: %s [%s]\n", SafePath(pathOf(f, d)), d.Line, d.Column, severityText(d.Severity, r.Color), SafeText(d.Message), SafeText(d.Rule))
		for _, rel := range d.Related {
			fmt.Fprintf(bw, "\t%s:%d:%d: related: %s\n", SafePath(relatedPath(f, d, rel)), rel.Line, rel.Column, SafeText(rel.Message))
		}
	})
}

// GitHub prints GitHub Actions workflow commands, one annotation per diagnostic:
//
//	::error file=path,line=3,col=5,title=AOF-ENV-003::message
func GitHub(w io.Writer, r *Report) error {
	return eachDiagnostic(w, r, func(bw *bufio.Writer, f *linter.FileResult, d *lint.Diagnostic) {
		cmd := bySeverity(d.Severity, "error", "warning", "notice")
		// What the input wrote is escaped (SafeText): a runner's log and a
		// terminal show no control character of it; the newlines before
		// related places are the annotation's own.
		msg := SafeText(d.Message)
		if d.Spec != "" {
			msg += " (" + SafeText(d.Spec) + ")"
		}
		for _, rel := range d.Related {
			msg += fmt.Sprintf("\nrelated: line %d: %s", rel.Line, SafeText(rel.Message))
		}
		fmt.Fprintf(bw, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
			ghProperty(SafeText(pathOf(f, d))), d.Line, d.Column, ghProperty(SafeText(d.Rule)), ghData(msg))
	})
}

// ghData escapes the message part of a workflow command.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value of a workflow command.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// ANSI colours of the severities.
const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
)

func severityText(s lint.Severity, color bool) string {
	if !color {
		return s.String()
	}
	return bySeverity(s, ansiRed, ansiYellow, ansiCyan) + s.String() + ansiReset
}

// SafePath returns p as it is when every character is printable, else Go-quoted
// (safetext.Path).
func SafePath(p string) string { return safetext.Path(p) }

// SafeText escapes the unprintable characters of s (control characters, escapes,
// bidirectional overrides, invalid UTF-8) the way Go quotes them, and keeps the
// rest (safetext.Line).
func SafeText(s string) string { return safetext.Line(s) }

// SummaryLine is what the text format prints at the end (on stderr).
func SummaryLine(s Summary) string {
	line := fmt.Sprintf("%d %s, %d %s, %d info in %d %s (%d %s)",
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"), s.Infos,
		s.Files, plural(s.Files, "file", "files"), s.Messages, plural(s.Messages, "message", "messages"))
	if s.NotPrinted > 0 {
		line += fmt.Sprintf("; %d %s counted but not printed (limit %d per input)", s.NotPrinted, plural(s.NotPrinted, "diagnostic", "diagnostics"), linter.MaxDiagnostics)
	}
	if s.Files == 0 {
		line += ": nothing to lint"
	}
	return line
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
