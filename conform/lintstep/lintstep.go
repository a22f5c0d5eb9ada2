// Package lintstep plugs aoplint (lint/linter) into the conformance runner: every
// transcript is linted with every single-message and sequence rule.
package lintstep

import (
	"github.com/aopkit/aopkit/conform/runner"
	"io"

	"github.com/aopkit/aopkit/lint/linter"

	_ "github.com/aopkit/aopkit/lint/all" // every rule of aoplint
)

// AOPLint is the Linter backed by aoplint's rules (lint/linter).
type AOPLint struct {
	// TaskType selects the aop-output summary limits.
	TaskType string
}

// LintTranscript lints a transcript/1 stream with every single-message and
// sequence rule.
func (l AOPLint) LintTranscript(name string, r io.Reader) ([]runner.Diag, error) {
	return l.LintTranscriptIn(name, "", r)
}

// LintTranscriptIn is LintTranscript with the directory the agent ran in (its
// scratch directory; "" when unknown): an aop-output report's DETAILS_FILE is
// resolved there, and a details file missing there is an error
// (AOPOUT-DETAILS-002).
func (l AOPLint) LintTranscriptIn(name, root string, r io.Reader) ([]runner.Diag, error) {
	var opts linter.Options
	opts.TaskType = l.TaskType
	opts.DetailsRoot = root
	res, err := linter.LintStream(name, r, opts)
	if err != nil {
		return nil, err
	}
	out := make([]runner.Diag, 0, len(res.Diagnostics))
	for _, d := range res.Diagnostics {
		out = append(out, runner.Diag{Line: d.Line, Rule: d.Rule, Severity: d.Severity.String(), Message: d.Message, Pointer: d.Pointer, Spec: d.Spec, Measured: d.Measured, Limit: d.Limit})
	}
	return out, nil
}
