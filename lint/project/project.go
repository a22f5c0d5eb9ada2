// Package project is aoplint in a repository: it finds and applies .aoplint.yaml
// (which files, per-path protocol and task type, rule settings), decides which
// files of a directory walk are protocol files, drops suppressed and baselined
// findings and reports unused suppressions and stale baseline entries. The command
// line (cmd/aoplint) calls it; it holds no flag parsing of its own.
package project

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/baseline"
	"github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/discover"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/suppress"
)

// Options are what the command line says about the project.
type Options struct {
	Config        string // --config FILE ("" finds one upward from Dir)
	NoConfig      bool   // --no-config
	Dir           string // where to start looking ("" the working directory)
	Unrecognised  string // --unrecognised ("" the configuration's, else auto)
	Baseline      string // --baseline FILE ("" the configuration's)
	BaselineWrite string // --baseline-write FILE
}

// Project is a loaded configuration and the state of one run.
type Project struct {
	Config       *config.Config
	Unrecognised string
	Baseline     *baseline.Baseline
	WriteTo      string
	// Written is how many findings Close wrote to WriteTo (-1 until it has).
	Written int

	// Skipped are the files left out because they carry no protocol marker;
	// Excluded those files.exclude (or files.include) left out.
	Skipped  []string
	Excluded []string
	// Pruned are the directories a walk left out (Prune).
	Pruned []string
	// Special are the FIFOs, devices and sockets a walk met, with what they are
	// (NotRegular): never read.
	Special []string

	// Stdin keeps what standard input held (when small enough) for its inline
	// suppressions: set it with CaptureStdin before linting.
	Stdin *Capture

	mu      sync.Mutex
	ignores *suppress.Ignores
	linted  []string
	toWrite []baseline.File
	// notKept are the files with findings past linter.MaxDiagnostics, which a
	// baseline cannot list.
	notKept []string
}

// Unwalked are directory names a walk never enters (hidden directories are
// not walked either); name them on the command line to lint them.
var Unwalked = []string{"node_modules"}

// Prune reports whether a directory walk leaves dir out: a directory named in
// Unwalked, or one files.exclude matches.
func (p *Project) Prune(dir string) bool {
	if p.PruneReason(dir) != "" {
		p.Pruned = append(p.Pruned, dir)
		return true
	}
	return false
}

// PruneReason says why Prune leaves dir out ("" when it does not).
func (p *Project) PruneReason(dir string) string {
	base := filepath.Base(dir)
	for _, n := range Unwalked {
		if base == n {
			return n + " directories are not walked"
		}
	}
	if p.Config.ExcludedDir(dir) {
		return "files.exclude of " + p.Config.Path
	}
	return ""
}

// Open loads the configuration and the baseline the options name.
func Open(o Options) (*Project, error) {
	cfg := config.Default()
	if !o.NoConfig {
		path := o.Config
		if path == "" {
			dir := o.Dir
			if dir == "" {
				dir = "."
			}
			found, err := config.Find(dir)
			if err != nil {
				return nil, err
			}
			path = found
		}
		if path != "" {
			c, err := config.Load(path)
			if err != nil {
				return nil, err
			}
			cfg = c
			if o.Config == "" {
				// Found upward: name it relative to the working directory.
				if wd, err := os.Getwd(); err == nil {
					if rel, err := filepath.Rel(wd, path); err == nil {
						cfg.Path = rel
					}
				}
			}
		}
	}
	p := &Project{Config: cfg, Unrecognised: cfg.Unrecognised, WriteTo: o.BaselineWrite, Written: -1}
	if o.Unrecognised != "" {
		switch o.Unrecognised {
		case config.UnrecognisedAuto, config.UnrecognisedSkip, config.UnrecognisedError:
		default:
			return nil, fmt.Errorf("unknown --unrecognised %q: want auto, skip or error", o.Unrecognised)
		}
		p.Unrecognised = o.Unrecognised
	}
	base := o.Baseline
	if base == "" && cfg.Baseline != "" && o.BaselineWrite == "" {
		base = filepath.Join(cfg.Dir, filepath.FromSlash(cfg.Baseline))
		if _, err := os.Stat(base); err != nil {
			base = "" // named by the configuration but not written yet
		} else if wd, err := os.Getwd(); err == nil {
			// Reported as --baseline reports it: relative to the working directory.
			if rel, err := filepath.Rel(wd, base); err == nil {
				base = rel
			}
		}
	}
	if base != "" {
		b, err := baseline.Load(base)
		if err != nil {
			return nil, err
		}
		p.Baseline = b
	}
	return p, nil
}

// NotRegular records a FIFO, a device or a socket a directory walk met (it is
// not read).
func (p *Project) NotRegular(path string, mode fs.FileMode) {
	what := "a named pipe"
	switch {
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeCharDevice != 0:
		what = "a character device"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	case mode&fs.ModeNamedPipe == 0:
		what = "type " + mode.Type().String()
	}
	p.Special = append(p.Special, path+": not a regular file ("+what+")")
}

// ExcludedFile reports whether the configuration's files.include/files.exclude
// leave a file out (recorded in Excluded), without reading it.
func (p *Project) ExcludedFile(path string) bool {
	if p.Config.Selected(path) {
		return false
	}
	p.Excluded = append(p.Excluded, path)
	return true
}

// Select decides whether a file is linted. named is true for a file named on the
// command line (false: found by walking a directory). A file left out is recorded
// in Excluded or Skipped.
func (p *Project) Select(path string, named bool) bool {
	if !p.Config.Selected(path) {
		p.Excluded = append(p.Excluded, path)
		return false
	}
	if !named && !discover.Candidate(path) {
		return false
	}
	need := p.Unrecognised == config.UnrecognisedSkip || (p.Unrecognised != config.UnrecognisedError && !named)
	if !need || p.Config.For(path).Protocol != "" {
		return true // an override that names the protocol makes its files protocol files
	}
	m, err := discover.FileMarker(path)
	if err != nil {
		return true // the linter reports the error
	}
	if m == "" {
		p.Skipped = append(p.Skipped, path)
		return false
	}
	return true
}

// Options returns the linter options of a file: the command line's, with the
// protocol and task type the configuration gives its path (the command line wins).
func (p *Project) Options(path string, base linter.Options) linter.Options {
	fs := p.Config.For(path)
	if base.Protocol == "" {
		base.Protocol = fs.Protocol
	}
	if base.TaskType == "" {
		base.TaskType = fs.TaskType
	}
	base.Marker = suppress.Member
	return base
}

// File applies to one file's result, in this order: the rule settings of its path,
// inline suppressions, the configuration's ignore entries, the baseline. It may be
// called as each file's result comes in (from one goroutine at a time or many);
// Close then adds what only the whole run can tell.
func (p *Project) File(r linter.FileResult, stdinName string) linter.FileResult {
	fs := p.Config.For(r.Path)
	ds := fs.Apply(r.Diagnostics)
	// Directives are applied as they are read (suppress.Applier), none held,
	// and unused suppressions past the per-input cap are only counted (over):
	// a directive naming a million unknown rules must not make a million
	// findings, nor a million directives a million held.
	var over int
	apply := func(each func(func(*suppress.Directive)) error) {
		a := suppress.NewApplier(r.Path, ds, linter.MaxDiagnostics)
		if each(a.Add) == nil {
			ds, over = a.Result()
		}
	}
	switch {
	case r.Path == stdinName:
		if p.Stdin != nil && p.Stdin.Complete() {
			apply(func(fn func(*suppress.Directive)) error { return suppress.Each(bytes.NewReader(p.Stdin.Bytes()), fn) })
		}
	case r.Marked != nil && !small(r.Path):
		// Read as JSON lines by the linter, and too large for suppress.Read to
		// take as one message: the lines it kept are the ones ReadFile would find.
		apply(func(fn func(*suppress.Directive)) error {
			for _, l := range r.Marked.Lines {
				for _, d := range suppress.Line(l.Text, l.Line) {
					fn(d)
				}
			}
			return nil
		})
	case len(ds) > 0 || small(r.Path):
		apply(func(fn func(*suppress.Directive)) error { return suppress.EachFile(r.Path, fn) })
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ignores == nil {
		p.ignores = suppress.NewIgnores(p.Config)
	}
	p.linted = append(p.linted, r.Path)
	ds = p.ignores.Apply(r.Path, ds)
	ds = fs.Apply(ds) // GEN-IGNORE-001 may be turned off or re-graded too
	var notKept linter.SeverityCounts
	if over > 0 {
		// The ones not made are what the ones made are: dropped by the same
		// ignore entry or rule setting, or counted at the severity set.
		probe := []lint.Diagnostic{{Path: r.Path, Rule: suppress.Unused.ID, Severity: suppress.Unused.Severity, Spec: suppress.Unused.Spec}}
		if kept := fs.Apply(p.ignores.Apply(r.Path, probe)); len(kept) == 1 {
			for range over {
				notKept.Add(kept[0].Severity)
			}
		}
	}
	switch {
	case p.WriteTo != "":
		// Errors and warnings past the cap would fail the next run with the
		// baseline (infos past it are only counted, and fail nothing).
		if nk := r.NotKept; nk != nil && nk.Errors+nk.Warnings > 0 {
			p.notKept = append(p.notKept, fmt.Sprintf("%s (%d errors and warnings)", r.Path, nk.Errors+nk.Warnings))
		}
		p.toWrite = append(p.toWrite, baseline.File{Path: r.Path, Diagnostics: append([]lint.Diagnostic(nil), ds...)})
	case p.Baseline != nil:
		ds = p.Baseline.Filter(r.Path, ds)
	}
	if ds == nil {
		ds = []lint.Diagnostic{}
	}
	r.Diagnostics = ds
	r.Bound()
	r.AddNotKept(notKept)
	if r.NotKept != nil {
		r.Diagnostics = fs.Apply(r.Diagnostics) // a new note, as the linter's is
	}
	return r
}

// Close ends the run: it writes the baseline when asked, and returns the results
// of the configuration file (unused ignore entries) and the baseline file (stale
// entries), if they have findings.
func (p *Project) Close() ([]linter.FileResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []linter.FileResult
	if p.ignores != nil {
		if u := p.Config.For(p.Config.Path).Apply(p.ignores.Unused()); len(u) > 0 {
			lint.SortDiagnostics(u)
			out = append(out, linter.FileResult{Path: p.Config.Path, Protocol: "aoplint", Diagnostics: u})
			out[len(out)-1].Bound()
		}
	}
	if p.WriteTo != "" {
		if len(p.notKept) > 0 {
			sort.Strings(p.notKept)
			return out, fmt.Errorf("%s: baseline not written: errors and warnings past the %d diagnostics an input keeps were counted but not kept, so a baseline cannot list them and they would fail the next run: %s; fix them or leave those files out (files.exclude in .aoplint.yaml), then write the baseline again",
				p.WriteTo, linter.MaxDiagnostics, strings.Join(p.notKept, ", "))
		}
		n, err := baseline.Write(p.WriteTo, p.toWrite)
		if err != nil {
			return out, err
		}
		p.Written = n
	} else if p.Baseline != nil {
		if st := p.Baseline.Stale(p.linted); len(st) > 0 {
			out = append(out, linter.FileResult{Path: p.Baseline.Path, Protocol: "aoplint", Diagnostics: st})
			out[len(out)-1].Bound()
		}
	}
	return out, nil
}

// Finish applies File to every result and appends what Close returns.
func (p *Project) Finish(results []linter.FileResult, stdinName string) ([]linter.FileResult, error) {
	for i := range results {
		results[i] = p.File(results[i], stdinName)
	}
	extra, err := p.Close()
	return append(results, extra...), err
}

// small reports whether path is a file small enough to search for unused inline
// suppressions when it has no findings (a long transcript without findings is not
// read twice).
func small(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() <= suppress.MaxWhole
}

// SkippedLine is the one-line account of the files left out ("" when none).
func (p *Project) SkippedLine() string {
	switch n := len(p.Skipped); {
	case n == 1:
		return "1 file skipped: no protocol detected (--verbose lists it)"
	case n > 1:
		return fmt.Sprintf("%d files skipped: no protocol detected (--verbose lists them)", n)
	}
	return ""
}

// Capture is a reader that keeps a copy of the first suppress.MaxWhole bytes it
// passes on.
type Capture struct {
	r    io.Reader
	buf  bytes.Buffer
	over bool
}

// CaptureStdin wraps standard input so that its inline suppressions can be read
// after it has been linted.
func (p *Project) CaptureStdin(r io.Reader) io.Reader {
	p.Stdin = &Capture{r: r}
	return p.Stdin
}

func (c *Capture) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if !c.over {
		if c.buf.Len()+n > suppress.MaxWhole {
			c.over = true
			c.buf = bytes.Buffer{}
		} else {
			c.buf.Write(b[:n])
		}
	}
	return n, err
}

// Complete reports whether the copy holds everything read.
func (c *Capture) Complete() bool { return !c.over }

// Bytes returns the copy.
func (c *Capture) Bytes() []byte { return c.buf.Bytes() }
