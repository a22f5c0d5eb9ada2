package output

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

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
