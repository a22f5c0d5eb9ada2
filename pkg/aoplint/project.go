package aoplint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/internal/version"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/aopoutput"
	"github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/inputs"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/output"
	"github.com/aopkit/aopkit/lint/project"
	"github.com/aopkit/aopkit/lint/revdiff"
)

// ErrUnknownProtocol is the error (errors.Is) of an Options.Protocol that names no
// protocol: Protocols lists them.
var ErrUnknownProtocol = errors.New("unknown protocol")

// ErrUnknownTaskType is the error (errors.Is) of an Options.TaskType that names no
// aop-output task type.
var ErrUnknownTaskType = errors.New("unknown aop-output task type")

// Check reports whether the options name a known protocol and task type.
func (o Options) Check() error {
	if o.Protocol != "" && lint.LookupProtocol(o.Protocol) == nil {
		return fmt.Errorf("%w %q: want one of %s", ErrUnknownProtocol, o.Protocol, strings.Join(Protocols(), ", "))
	}
	if o.TaskType != "" {
		if _, ok := aopoutput.TaskTypes[o.TaskType]; !ok {
			return fmt.Errorf("%w %q", ErrUnknownTaskType, o.TaskType)
		}
	}
	return nil
}

// ctxReader stops reading once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// LintContext lints what r holds, as LintReader does, and stops reading once ctx is
// done (the error is then ctx.Err()). Options that name an unknown protocol or task
// type are an error (ErrUnknownProtocol, ErrUnknownTaskType), not a diagnostic.
func LintContext(ctx context.Context, r io.Reader, opts Options) (*Result, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	res, err := LintReader(ctxReader{ctx, r}, opts)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ProjectOptions say which configuration a Project applies, and the rule control
// of aoplint's command line.
type ProjectOptions struct {
	// Dir is where .aoplint.yaml (or .aoplint.yml) is looked for, then in each
	// parent directory (default: the working directory).
	Dir string
	// Config names the configuration file instead; NoConfig uses none.
	Config   string
	NoConfig bool
	// Baseline is a baseline file (default: the configuration's baseline).
	Baseline string
	// Enable, Disable and EnableOnly are rule IDs or globs, as aoplint's --enable,
	// --disable and --enable-only.
	Enable, Disable, EnableOnly []string
	// NewFromRev keeps the findings on lines changed since this git revision
	// (aoplint --new-from-rev).
	NewFromRev string
}

// Project is a configuration in effect: .aoplint.yaml's files, rules, overrides,
// ignore entries and baseline, as the aoplint command applies them. Lint with
// LintPaths; one Project serves one run (its baseline and unused ignore entries
// are judged over the run).
type Project struct {
	p       *project.Project
	newFrom *revdiff.Changes
}

// OpenProject loads the configuration and baseline the options name.
func OpenProject(o ProjectOptions) (*Project, error) {
	p, err := project.Open(project.Options{Dir: o.Dir, Config: o.Config, NoConfig: o.NoConfig, Baseline: o.Baseline})
	if err != nil {
		return nil, err
	}
	if err := p.Config.Control(config.RuleControl{Enable: o.Enable, Disable: o.Disable, EnableOnly: o.EnableOnly}); err != nil {
		return nil, err
	}
	pr := &Project{p: p}
	if o.NewFromRev != "" {
		dir := o.Dir
		if dir == "" {
			dir = "."
		}
		if pr.newFrom, err = revdiff.Changed(dir, o.NewFromRev); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// ConfigFile is the configuration file in effect ("" for none).
func (p *Project) ConfigFile() string { return p.p.Config.Path }

// FailOn is the configuration's fail-on (Error when it says nothing).
func (p *Project) FailOn() Severity {
	if p.p.Config.FailOn == "warning" {
		return Warning
	}
	return Error
}

// Format is the configuration's output format ("text" when it says nothing).
func (p *Project) Format() string {
	if p.p.Config.Format == "" {
		return "text"
	}
	return p.p.Config.Format
}

// LintPaths lints files, directories (walked; an AOF data directory as a whole,
// and a file inside one with its directory) and globs, as `aoplint PATH...` does,
// with the configuration applied: files.include/exclude and unrecognised, rules
// and overrides, inline suppressions, ignore entries, the baseline. opts gives the
// protocol, task type and workers (Name and BaseDir are per file). Once ctx is
// done no further file starts and the error is ctx.Err(); a path that cannot be
// read is an error too, after the report of the others.
func (p *Project) LintPaths(ctx context.Context, paths []string, opts Options) (*Report, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if p.p.Unrecognised == "" {
		p.p.Unrecognised = config.UnrecognisedAuto
	}
	base := opts.linter()
	var files []linter.FileResult
	add := func(r linter.FileResult) {
		if p.newFrom != nil {
			r = p.newFrom.Filter(r, "")
		}
		files = append(files, r)
	}
	errs := inputs.Lint(ctx, paths, p.p, func(path string) linter.Options { return p.p.Options(path, base) }, opts.Workers, strings.NewReader(""), func(r linter.FileResult) {
		add(p.p.File(r, ""))
	})
	extra, err := p.p.Close()
	if err != nil {
		errs = append(errs, err)
	}
	for _, r := range extra {
		add(r)
	}
	rep := &Report{rep: &output.Report{Files: files, Version: version.String()}}
	rep.rep.Sort()
	for _, f := range rep.rep.Files {
		rep.Files = append(rep.Files, resultOf(f))
	}
	s := rep.rep.Summarize()
	rep.Errors, rep.Warnings, rep.Infos = s.Errors, s.Warnings, s.Infos
	return rep, errors.Join(errs...)
}

// Report is the result of LintPaths: one Result per file, sorted by path, and the
// counts over all of them.
type Report struct {
	Files                   []*Result
	Errors, Warnings, Infos int
	rep                     *output.Report
}

// Failed says whether the report has a finding at or above threshold (aoplint's
// exit status 1).
func (r *Report) Failed(threshold Severity) bool {
	return failed(threshold, r.Errors, r.Warnings, r.Infos)
}

// Formats lists the formats Write takes: aoplint's --format values.
func Formats() []string { return append([]string(nil), output.Formats...) }

// Write prints the report in one of Formats, as aoplint prints it (JUnit fails a
// test case on errors; WriteJUnit takes another threshold).
func (r *Report) Write(w io.Writer, format string) error {
	if format == "junit" {
		return r.WriteJUnit(w, Error)
	}
	return output.Write(w, format, r.rep)
}

// WriteJUnit prints the report as JUnit XML whose test cases fail on findings at
// or above failOn (aoplint --format junit --fail-on).
func (r *Report) WriteJUnit(w io.Writer, failOn Severity) error {
	return output.JUnitFailOn(w, r.rep, failOn)
}
