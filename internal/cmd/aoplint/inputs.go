package aoplintcmd

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/internal/startup"
	lintconfig "github.com/aopkit/aopkit/lint/config"
	"github.com/aopkit/aopkit/lint/linter"
	"github.com/aopkit/aopkit/lint/project"
)

// job is one unit of work: a file, a data directory, or standard input.
type job struct {
	path  string
	dir   *linter.DirLinter
	stdin bool
}

// expand turns the arguments into jobs: files as named, directories walked
// recursively (hidden entries skipped; a directory a DirLinter claims is linted as a
// whole), globs expanded, "-" for standard input. sel says which files are linted
// (project.Project.Select: the configuration's include/exclude, protocol markers);
// named is true for a file named on the command line.
func expand(args []string, sel selector) ([]job, []error) {
	var jobs []job
	var errs []error
	lifted := map[string]bool{} // data directories already in jobs
	for _, a := range args {
		if a == "-" {
			jobs = append(jobs, job{path: "<stdin>", stdin: true})
			continue
		}
		paths, globbed := []string{a}, false
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			m, gerr := filepath.Glob(a)
			if gerr != nil {
				errs = append(errs, fmt.Errorf("bad glob %q: %v", a, gerr))
				continue
			}
			if len(m) == 0 {
				errs = append(errs, fmt.Errorf("%s: no file matches", a))
				continue
			}
			paths, globbed = m, true
		}
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !st.IsDir() {
				// A file of an AOF data directory is linted as part of it: the
				// directory once, cross-file rules included (pre-commit passes
				// the staged files one by one).
				if dir, d := enclosingDataDir(p); d != nil {
					if !lifted[dir] && sel.Select(dir, true) {
						lifted[dir] = true
						jobs = append(jobs, job{path: dir, dir: d})
					}
					continue
				}
				if sel.Select(p, !globbed) {
					jobs = append(jobs, job{path: p})
				}
				continue
			}
			if d := linter.DirLinterFor(p); d != nil && sel.Select(p, true) {
				if key := filepath.Clean(p); !lifted[key] {
					lifted[key] = true
					jobs = append(jobs, job{path: p, dir: d})
				}
				continue
			}
			err = filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
				if err != nil {
					errs = append(errs, err)
					if e != nil && e.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				name := e.Name()
				if path != p && strings.HasPrefix(name, ".") {
					if e.IsDir() {
						return fs.SkipDir
					}
					return nil
				}
				if e.IsDir() {
					if path != p {
						if sel.Prune(path) {
							return fs.SkipDir
						}
						if d := linter.DirLinterFor(path); d != nil {
							if sel.Select(path, true) {
								jobs = append(jobs, job{path: path, dir: d})
							}
							return fs.SkipDir
						}
					}
					return nil
				}
				if e.Type().IsRegular() && sel.Select(path, false) {
					jobs = append(jobs, job{path: path})
				}
				return nil
			})
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return jobs, errs
}

// maxLift is how many directories above a file enclosingDataDir looks: an AOF data
// directory's deepest file is tasks/<status>/<taskId>/inputs/handoff.json.
const maxLift = 5

// enclosingDataDir returns the directory, at most maxLift levels above the file at
// path, that a DirLinter claims (an AOF data directory), named as path names it
// (relative stays relative); nil when there is none.
func enclosingDataDir(path string) (string, *linter.DirLinter) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil
	}
	dir := filepath.Dir(abs)
	for i := 0; i < maxLift; i++ {
		if d := linter.DirLinterFor(dir); d != nil {
			if !filepath.IsAbs(path) {
				if wd, err := os.Getwd(); err == nil {
					if rel, err := filepath.Rel(wd, dir); err == nil {
						return rel, d
					}
				}
			}
			return dir, d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", nil
}

// selector says which inputs are linted: project.Project.
type selector interface {
	// Select reports whether a file (or a data directory) is linted; named is
	// false for one found by walking a directory or expanding a glob.
	Select(path string, named bool) bool
	// Prune reports whether a walk leaves a directory out.
	Prune(dir string) bool
}

// lintInputs lints every input, files in parallel, and hands the results to emit
// in report order (sorted by path, ties in input order: the order Report.Sort
// gives), each as soon as every result before it is known. Memory holds the
// results that finished ahead of an earlier input, not the whole run's. sel says
// which inputs are linted, optsFor gives each its options.
func lintInputs(args []string, sel selector, optsFor func(string) linter.Options, jobsN int, stdin io.Reader, emit func(linter.FileResult)) []error {
	jobs, errs := expand(args, sel)
	if jobsN <= 0 {
		jobsN = runtime.GOMAXPROCS(0)
	}
	// Jobs run in the order of the smallest path they can yield: a file's own
	// path; a data directory's results lie under it, but their order against other
	// paths is not the directory's, so it yields "" (it runs first and holds the
	// output back until it is done).
	key := func(j job) string {
		if j.dir != nil {
			return ""
		}
		return j.path
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return key(jobs[order[a]]) < key(jobs[order[b]]) })

	type out struct {
		job int
		res []linter.FileResult
		err error
	}
	outs := make(chan out, jobsN)
	// The files share jobsN cores: one each while any is left to start, and
	// the streams of the last ones add workers on the cores the others gave
	// back (linter.Cores). One file has them all from its start, as stdin does.
	files := 0
	for _, j := range jobs {
		if !j.stdin {
			files++
		}
	}
	cores := linter.NewCores(jobsN, files)
	shared := files > 1
	go func() {
		var wg sync.WaitGroup
		for _, i := range order {
			j := jobs[i]
			if j.stdin {
				start := time.Now()
				r, err := linter.LintReader(j.path, stdin, optsFor(j.path))
				r.Elapsed = time.Since(start)
				outs <- out{job: i, res: []linter.FileResult{r}, err: err}
				continue
			}
			wg.Add(1)
			cores.Take()
			go func(i int, j job) {
				defer func() { cores.Give(); wg.Done() }()
				startup.GrowStack() // once, here, rather than twice in the lint's deeper calls
				start := time.Now()
				opts := optsFor(j.path)
				if shared {
					opts.Cores = cores
				}
				if j.dir != nil {
					res, err := j.dir.Lint(j.path, opts)
					// A data directory is linted as a whole: its files share its time.
					for k := range res {
						res[k].Elapsed = time.Since(start) / time.Duration(len(res))
					}
					outs <- out{job: i, res: res, err: err}
					return
				}
				r, err := linter.LintFile(j.path, opts)
				r.Elapsed = time.Since(start)
				outs <- out{job: i, res: []linter.FileResult{r}, err: err}
			}(i, j)
		}
		wg.Wait()
		close(outs)
	}()

	// held are the results that cannot be printed yet, smallest first.
	var held heldResults
	finished := make([]bool, len(jobs))
	jobErrs := make([]error, len(jobs))
	next := 0 // position in order of the first unfinished job
	for o := range outs {
		finished[o.job] = true
		jobErrs[o.job] = o.err
		if o.err == nil {
			for k, r := range o.res {
				heap.Push(&held, heldResult{r: r, job: o.job, k: k})
			}
		}
		for next < len(order) && finished[order[next]] {
			next++
		}
		for held.Len() > 0 {
			top := held[0]
			if next < len(order) {
				j := order[next]
				if b := key(jobs[j]); top.r.Path > b || (top.r.Path == b && top.job > j) {
					break // the unfinished job j may still yield a result before it
				}
			}
			emit(heap.Pop(&held).(heldResult).r)
		}
	}
	for _, e := range jobErrs {
		if e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// heldResult is a result waiting for the results that sort before it.
type heldResult struct {
	r   linter.FileResult
	job int // the input that yielded it
	k   int // its place among that input's results
}

// heldResults is a min-heap in report order: path, then input order.
type heldResults []heldResult

func (h heldResults) Len() int { return len(h) }
func (h heldResults) Less(a, b int) bool {
	if h[a].r.Path != h[b].r.Path {
		return h[a].r.Path < h[b].r.Path
	}
	if h[a].job != h[b].job {
		return h[a].job < h[b].job
	}
	return h[a].k < h[b].k
}
func (h heldResults) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *heldResults) Push(x any)   { *h = append(*h, x.(heldResult)) }
func (h *heldResults) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Flags of the project: configuration, unrecognised files, baseline.
const (
	flagConfig        = "config"
	flagNoConfig      = "no-config"
	flagUnrecognised  = "unrecognised"
	flagBaseline      = "baseline"
	flagBaselineWrite = "baseline-write"
)

func projectFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagConfig, Usage: "configuration file (default: .aoplint.yaml in this directory or the nearest parent)"},
		&cli.BoolFlag{Name: flagNoConfig, Usage: "ignore any .aoplint.yaml"},
		&cli.StringFlag{Name: flagUnrecognised, Usage: "files without a protocol marker: auto (skip in directory walks, report when named), skip or error (default: the configuration's, else auto)"},
		&cli.StringFlag{Name: flagBaseline, Usage: "report only the findings this baseline file does not list; report its stale entries"},
		&cli.StringFlag{Name: flagBaselineWrite, Usage: "write today's findings to this baseline file (and exit 0)"},
	}
}

// projectFrom opens the configuration and baseline the flags name, fills the
// format from the configuration when --format is not given, and returns the
// --fail-on in effect.
func projectFrom(c flagValues, cfg *config) (string, error) {
	if c.IsSet(flagBaseline) && c.IsSet(flagBaselineWrite) {
		return "", usageErr("--baseline and --baseline-write exclude each other")
	}
	p, err := project.Open(project.Options{
		Config: c.String(flagConfig), NoConfig: c.Bool(flagNoConfig), Unrecognised: c.String(flagUnrecognised),
		Baseline: c.String(flagBaseline), BaselineWrite: c.String(flagBaselineWrite),
	})
	if err != nil {
		return "", cli.Exit(err.Error(), exitUsage)
	}
	cfg.Project = p
	if !c.IsSet(flagFormat) && p.Config.Format != "" {
		cfg.Format = p.Config.Format
	}
	failOn := c.String(flagFailOn)
	if !c.IsSet(flagFailOn) && p.Config.FailOn != "" {
		failOn = p.Config.FailOn
	}
	return failOn, nil
}

// reportProject prints on stderr how many files were skipped, and with --verbose
// which ones, and which the configuration excluded.
func reportProject(w io.Writer, p *project.Project, verbose bool) {
	if verbose {
		if p.Config.Path != "" {
			fmt.Fprintf(w, "aoplint: configuration %s\n", p.Config.Path)
		}
		for _, f := range p.Skipped {
			fmt.Fprintf(w, "aoplint: skipped %s: no protocol detected\n", f)
		}
		for _, d := range p.Pruned {
			fmt.Fprintf(w, "aoplint: not walked %s: %s\n", d, p.PruneReason(d))
		}
		for _, f := range p.Excluded {
			fmt.Fprintf(w, "aoplint: excluded %s: files.include/files.exclude of %s\n", f, p.Config.Path)
		}
	}
	if line := p.SkippedLine(); line != "" {
		fmt.Fprintln(w, "aoplint:", line)
	}
	if p.WriteTo != "" {
		fmt.Fprintf(w, "aoplint: baseline written to %s\n", p.WriteTo)
	}
}

// configCommand is `aoplint config init|check|schema`.
func configCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "write (init), validate (check) or print the JSON Schema of (schema) .aoplint.yaml",
		Subcommands: []*cli.Command{
			{Name: "init", Usage: "write a commented .aoplint.yaml in the current directory", Flags: []cli.Flag{
				&cli.BoolFlag{Name: "force", Usage: "overwrite an existing file"},
			}, Action: func(c *cli.Context) error {
				const name = ".aoplint.yaml"
				if _, err := os.Stat(name); err == nil && !c.Bool("force") {
					return usageErr("%s exists; use --force to overwrite it", name)
				}
				if err := os.WriteFile(name, []byte(lintconfig.Template), 0o644); err != nil {
					return cli.Exit(err.Error(), exitUsage)
				}
				fmt.Fprintf(stdout, "wrote %s\n", name)
				return nil
			}},
			{Name: "check", Usage: "validate a configuration file (default: the one aoplint would use); exit 1 if it has errors", ArgsUsage: "[FILE]", Action: func(c *cli.Context) error {
				path := c.Args().First()
				if path == "" {
					found, err := lintconfig.Find(".")
					if err != nil {
						return cli.Exit(err.Error(), exitUsage)
					}
					if found == "" {
						return usageErr("no .aoplint.yaml in this directory or any parent (aoplint config init writes one)")
					}
					path = found
					if wd, err := os.Getwd(); err == nil {
						if rel, err := filepath.Rel(wd, found); err == nil {
							path = rel
						}
					}
				}
				if _, err := lintconfig.Load(path); err != nil {
					var es lintconfig.Errors
					if errors.As(err, &es) {
						return cli.Exit(err.Error(), exitFindings)
					}
					return cli.Exit(err.Error(), exitUsage)
				}
				fmt.Fprintf(stdout, "%s: ok\n", path)
				return nil
			}},
			{Name: "schema", Usage: "print the JSON Schema of .aoplint.yaml", Action: func(c *cli.Context) error {
				data, err := lintconfig.Schema()
				if err != nil {
					return cli.Exit(err.Error(), exitUsage)
				}
				_, err = stdout.Write(data)
				return err
			}},
		},
	}
}
