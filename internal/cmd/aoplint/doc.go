// Package aoplintcmd is the aoplint command line: cmd/aoplint's main calls Run, and
// the testscript kit (package pkg/testkit) registers it as a testscript command.
package aoplintcmd

import "io"

// Run runs aoplint with args (args[0] is the program name) and returns the exit code:
// 0 clean, 1 findings at or above --fail-on, 2 usage or I/O error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr)
}

// WriteRulesMarkdown writes the rule catalogue as docs/rules.md holds it.
var WriteRulesMarkdown = writeRulesMarkdown
