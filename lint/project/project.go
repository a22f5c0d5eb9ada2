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
	"os"
	"path/filepath"
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

	// Skipped are the files left out because they carry no protocol marker;
	// Excluded those files.exclude (or files.include) left out.
	Skipped  []string
	Excluded []string
	// Pruned are the directories a walk left out (Prune).
	Pruned []string

	// Stdin keeps what standard input held (when small enough) for its inline
	// suppressions: set it with CaptureStdin before linting.
	Stdin *Capture

	mu      sync.Mutex
	ignores *suppress.Ignores
	linted  []string
	toWrite []baseline.File
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
	p := &Project{Config: cfg, Unrecognised: cfg.Unrecognised, WriteTo: o.BaselineWrite}
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
	switch {
	case r.Path == stdinName:
		if p.Stdin != nil && p.Stdin.Complete() {
			if dirs, err := suppress.Read(bytes.NewReader(p.Stdin.Bytes())); err == nil {
				ds = suppress.ApplyInline(r.Path, ds, dirs)
			}
		}
	case r.Marked != nil && !small(r.Path):
		// Read as JSON lines by the linter, and too large for suppress.Read to
		// take as one message: the lines it kept are the ones ReadFile would find.
		var dirs []*suppress.Directive
		for _, l := range r.Marked.Lines {
			dirs = append(dirs, suppress.Line(l.Text, l.Line)...)
		}
		ds = suppress.ApplyInline(r.Path, ds, dirs)
	case len(ds) > 0 || small(r.Path):
		if dirs, err := suppress.ReadFile(r.Path); err == nil {
			ds = suppress.ApplyInline(r.Path, ds, dirs)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ignores == nil {
		p.ignores = suppress.NewIgnores(p.Config)
	}
	p.linted = append(p.linted, r.Path)
	ds = p.ignores.Apply(r.Path, ds)
	ds = fs.Apply(ds) // GEN-IGNORE-001 may be turned off or re-graded too
	switch {
	case p.WriteTo != "":
		p.toWrite = append(p.toWrite, baseline.File{Path: r.Path, Diagnostics: append([]lint.Diagnostic(nil), ds...)})
	case p.Baseline != nil:
		ds = p.Baseline.Filter(r.Path, ds)
	}
	if ds == nil {
		ds = []lint.Diagnostic{}
	}
	r.Diagnostics = ds
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
		}
	}
	if p.WriteTo != "" {
		if _, err := baseline.Write(p.WriteTo, p.toWrite); err != nil {
			return out, err
		}
	} else if p.Baseline != nil {
		if st := p.Baseline.Stale(p.linted); len(st) > 0 {
			out = append(out, linter.FileResult{Path: p.Baseline.Path, Protocol: "aoplint", Diagnostics: st})
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
