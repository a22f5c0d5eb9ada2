// Package aoplint lints messages of the five agent-orchestration protocols (aop2, aos,
// aop-output, aof, orchmsg) from Go: give it bytes or a reader, get the diagnostics
// the aoplint command prints, with the same rules, positions and exit semantics.
//
//	res, err := aoplint.LintReader(r, aoplint.Options{Name: "agent.jsonl"})
//	if err != nil { ... }            // the reader failed; findings are never errors
//	for _, d := range res.Diagnostics {
//		fmt.Printf("%s:%d:%d: %s: %s [%s]\n", res.Name, d.Line, d.Column, d.Severity, d.Message, d.Rule)
//	}
//	if res.Failed(aoplint.Error) { ... } // what `aoplint` exits 1 on
//
// A single message, a JSON-lines stream or transcript, and an aop-output text report
// are all accepted; the protocol of each message is detected unless Options.Protocol
// names one (an unknown one is an error, ErrUnknownProtocol). LintContext stops when
// its context is done. The functions are safe for concurrent use.
//
// To lint a repository as the aoplint command does, with its .aoplint.yaml (files,
// rules, overrides, ignore entries, baseline), open a Project and call LintPaths on
// files, directories (AOF data directories as a whole) and globs; the Report it
// returns writes every format of the command (Report.Write, Formats).
package aoplint

import (
	"io"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all" // every protocol's rules
	// The rules of the baseline and of suppression (GEN-BASELINE, GEN-IGNORE) are
	// registered by their packages, which lint/all cannot import (their tests
	// import lint/all): without them Rules() listed 172 rules, `aoplint rules` 174.
	_ "github.com/aopkit/aopkit/lint/baseline"
	"github.com/aopkit/aopkit/lint/linter"
	_ "github.com/aopkit/aopkit/lint/suppress"
)

// Diagnostic is one finding: rule ID, severity, message, 1-based line and column, the
// JSON Pointer of the offending value, the spec section, and related places.
type Diagnostic = lint.Diagnostic

// Severity of a diagnostic: Info, Warning or Error.
type Severity = lint.Severity

// The severities, least to most severe.
const (
	Info    = lint.Info
	Warning = lint.Warning
	Error   = lint.Error
)

// Options tune a lint. The zero value detects the protocol of each message.
type Options struct {
	// Name is how the input is called in diagnostics (default "<input>").
	Name string
	// Protocol forces a protocol (one of Protocols: "aop2", ...) instead of
	// detecting it.
	Protocol string
	// TaskType selects the aop-output summary limits (search, analysis, test, ...).
	TaskType string
	// BaseDir is where paths inside messages (aop-output DETAILS_FILE) are resolved.
	BaseDir string
	// Workers lint the lines of a stream in parallel (0: one per CPU).
	Workers int
}

// Result is what one input holds.
type Result struct {
	Name string
	// Protocol detected ("mixed" when a stream holds several, "" when none).
	Protocol string
	// Kind of the message when the input is a single message.
	Kind string
	// Messages linted.
	Messages int
	// Diagnostics, sorted by line, column and rule; at most linter.MaxDiagnostics
	// (10,000) are kept, but Errors, Warnings and Infos count every one.
	Diagnostics []Diagnostic
	// Errors, Warnings and Infos count the diagnostics by severity, kept or not.
	Errors, Warnings, Infos int
}

// Failed says whether the input has a finding at or above threshold: Failed(Error)
// is aoplint's default exit 1, Failed(Warning) its --fail-on warning.
func (r *Result) Failed(threshold Severity) bool {
	return failed(threshold, r.Errors, r.Warnings, r.Infos)
}

// failed says whether counts of findings have one at or above threshold.
func failed(threshold Severity, errors, warnings, infos int) bool {
	switch threshold {
	case Error:
		return errors > 0
	case Warning:
		return errors+warnings > 0
	}
	return errors+warnings+infos > 0
}

func (o Options) linter() linter.Options {
	lo := linter.Options{Protocol: o.Protocol, Workers: o.Workers}
	lo.TaskType = o.TaskType
	lo.BaseDir = o.BaseDir
	return lo
}

func (o Options) name() string {
	if o.Name == "" {
		return "<input>"
	}
	return o.Name
}

func resultOf(fr linter.FileResult) *Result {
	r := &Result{Name: fr.Path, Protocol: fr.Protocol, Kind: fr.Kind, Messages: fr.Messages, Diagnostics: fr.Diagnostics}
	r.Errors, r.Warnings, r.Infos = fr.Counts()
	return r
}

// Lint lints data: one message, a JSON-lines stream or an aop-output report. It
// does not check opts: call Options.Check first, or use LintContext, which returns
// ErrUnknownProtocol for a protocol that does not exist.
func Lint(data []byte, opts Options) *Result {
	return resultOf(linter.LintBytes(opts.name(), data, opts.linter()))
}

// LintReader lints what r holds, reading a stream line by line (memory stays bounded
// however long it is). The error is the reader's, or the options' (Options.Check:
// ErrUnknownProtocol); findings are in the Result.
func LintReader(r io.Reader, opts Options) (*Result, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	fr, err := linter.LintReader(opts.name(), r, opts.linter())
	if err != nil {
		return nil, err
	}
	return resultOf(fr), nil
}

// LintFile lints a file on disk; Options.Name defaults to path and BaseDir to its
// directory.
func LintFile(path string, opts Options) (*Result, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = path
	}
	lo := opts.linter()
	fr, err := linter.LintFile(path, lo)
	if err != nil {
		return nil, err
	}
	if opts.Name != path {
		fr.Path = opts.Name
	}
	return resultOf(fr), nil
}

// Protocols lists the protocol IDs Options.Protocol accepts.
func Protocols() []string { return lint.ProtocolIDs() }

// Rule describes a rule: its ID, default severity, protocol ("" for all), title and
// spec section.
type Rule struct {
	ID, Protocol, Title, Spec string
	Severity                  Severity
}

// Rules lists every rule, sorted by ID.
func Rules() []Rule {
	var rs []Rule
	for _, r := range lint.Rules() {
		rs = append(rs, Rule{ID: r.ID, Protocol: r.Protocol, Title: r.Title, Spec: r.Spec, Severity: r.Severity})
	}
	return rs
}
