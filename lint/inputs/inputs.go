// Package inputs turns aoplint's arguments (files, directories, globs, "-") into
// lint jobs and runs them: files in parallel, an AOF data directory as a whole (a
// file inside one lints the directory), results handed on in report order. The
// command and the library (pkg/aoplint) lint paths with it.
package inputs

import (
	"container/heap"
	"context"
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

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/internal/startup"
	"github.com/aopkit/aopkit/lint/linter"
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
//
// A symbolic link met in a walk or matched by a glob is followed when its target
// lies inside the directory being walked (the glob's directory): a link whose
// target leaves it is an error (it is not linted, and the run exits 2), never a
// silent skip. A file or data directory reached twice (a link beside its target,
// as AOF's events/events.jsonl beside the dated log) is linted once, under the
// name that is no link when there is one.
func expand(args []string, sel Selector) ([]job, []error) {
	w := &walker{sel: sel, walked: map[string]bool{}}
	for _, a := range args {
		if a == "-" {
			w.jobs = append(w.jobs, job{path: "<stdin>", stdin: true})
			continue
		}
		paths, globbed := []string{a}, false
		if _, err := os.Lstat(a); err != nil && strings.ContainsAny(a, "*?[") {
			m, gerr := filepath.Glob(a)
			if gerr != nil {
				w.errs = append(w.errs, fmt.Errorf("bad glob %q: %v", a, gerr))
				continue
			}
			if len(m) == 0 {
				w.errs = append(w.errs, fmt.Errorf("%s: no file matches", a))
				continue
			}
			paths, globbed = m, true
		}
		for _, p := range paths {
			if globbed {
				// A match is found, not named: a link must stay inside the
				// glob's directory (the part before its first wildcard).
				if err := safefile.Inside(globRoot(a), p); err != nil {
					w.errs = append(w.errs, linkErr(p, err))
					continue
				}
			}
			st, err := os.Stat(p)
			if err != nil {
				w.errs = append(w.errs, err)
				continue
			}
			if !st.IsDir() {
				// A file of an AOF data directory is linted as part of it: the
				// directory once, cross-file rules included (pre-commit passes
				// the staged files one by one; dedup keeps one job a directory).
				if dir, d := enclosingDataDir(p); d != nil {
					if sel.Select(dir, true) {
						w.dir(dir, d)
					}
					continue
				}
				if sel.Select(p, !globbed) {
					w.file(p)
				}
				continue
			}
			if d := linter.DirLinterFor(p); d != nil && sel.Select(p, true) {
				w.dir(p, d)
				continue
			}
			dir := p
			if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
				// A named link to a directory: WalkDir enters it only by a
				// name that ends in a separator.
				dir = p + string(filepath.Separator)
			}
			w.walk(p, dir)
			// Then the links to directories the walk met, each after what
			// it found before it (so a directory is named without a link when
			// it can be).
			for len(w.pending) > 0 {
				l := w.pending[0]
				w.pending = w.pending[1:]
				if w.subdir(l.path) == nil {
					// WalkDir does not follow a link it starts from unless the
					// name ends in a separator; the files are then named
					// through the link.
					w.walk(l.root, l.path+string(filepath.Separator))
				}
			}
		}
	}
	return w.dedup(), w.errs
}

// walker collects the jobs of expand.
type walker struct {
	sel    Selector
	jobs   []job
	errs   []error
	walked map[string]bool // real paths of the directories walked
	// pending are the links to directories met in a walk, walked after it.
	pending []pendingLink
}

type pendingLink struct{ root, path string }

func (w *walker) file(p string)                     { w.jobs = append(w.jobs, job{path: p}) }
func (w *walker) dir(p string, d *linter.DirLinter) { w.jobs = append(w.jobs, job{path: p, dir: d}) }

// walk walks dir, a directory inside root (the directory named or matched),
// following the symbolic links whose targets stay inside root.
func (w *walker) walk(root, dir string) {
	if real, err := realPath(dir); err == nil {
		if w.walked[real] {
			return // reached before (through a link, or named twice)
		}
		w.walked[real] = true
	}
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			w.errs = append(w.errs, err)
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := e.Name()
		if path != dir && strings.HasPrefix(name, ".") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			if path == dir {
				return nil
			}
			if err := w.subdir(path); err != nil {
				return err
			}
			if real, err := realPath(path); err == nil {
				if w.walked[real] {
					return fs.SkipDir
				}
				w.walked[real] = true
			}
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			w.link(root, path)
			return nil
		}
		if !e.Type().IsRegular() {
			w.special(path, e.Type())
			return nil
		}
		if w.sel.Select(path, false) {
			w.file(path)
		}
		return nil
	})
	if err != nil {
		w.errs = append(w.errs, err)
	}
}

// subdir decides about a directory met in a walk: left out (Prune), linted as a
// whole (a DirLinter claims it), or walked (nil).
func (w *walker) subdir(path string) error {
	if w.sel.Prune(path) {
		return fs.SkipDir
	}
	if d := linter.DirLinterFor(path); d != nil {
		if w.sel.Select(path, true) {
			w.dir(path, d)
		}
		return fs.SkipDir
	}
	return nil
}

// link handles a symbolic link met in a walk of root. A link the configuration
// leaves out (files.exclude, an unwalked directory name) is left out before it is
// judged: no error for a link nobody asked to lint.
func (w *walker) link(root, path string) {
	st, err := os.Stat(path) // follows the link; opens nothing
	if err == nil && st.IsDir() {
		if w.sel.Prune(path) {
			return
		}
	} else if x, ok := w.sel.(interface{ ExcludedFile(path string) bool }); ok && x.ExcludedFile(path) {
		return
	}
	if err := safefile.Inside(root, path); err != nil {
		w.errs = append(w.errs, linkErr(path, err))
		return
	}
	if err != nil {
		w.errs = append(w.errs, fmt.Errorf("%s: symbolic link to nothing: %v", path, err))
		return
	}
	switch {
	case st.IsDir():
		w.pending = append(w.pending, pendingLink{root: root, path: path})
	case st.Mode().IsRegular():
		if w.sel.Select(path, false) {
			w.file(path)
		}
	default:
		w.special(path, st.Mode())
	}
}

// special notes a FIFO, a device or a socket a walk met: not read, and listed
// with --verbose (a Selector that keeps a list: project.Project.NotRegular).
func (w *walker) special(path string, mode fs.FileMode) {
	if n, ok := w.sel.(interface {
		NotRegular(path string, mode fs.FileMode)
	}); ok {
		n.NotRegular(path, mode)
	}
}

// dedup drops the jobs that name a file or a data directory an earlier job (or a
// name that is no link) names too.
func (w *walker) dedup() []job {
	type seen struct {
		at   int
		link bool
	}
	first := map[string]seen{}
	keep := make([]bool, len(w.jobs))
	for i, j := range w.jobs {
		keep[i] = true
		if j.stdin {
			continue
		}
		real, err := realPath(j.path)
		if err != nil {
			continue
		}
		abs, _ := filepath.Abs(j.path)
		link := abs != real
		s, ok := first[real]
		switch {
		case !ok:
			first[real] = seen{at: i, link: link}
		case s.link && !link:
			keep[s.at] = false
			first[real] = seen{at: i, link: link}
		default:
			keep[i] = false
		}
	}
	out := w.jobs[:0]
	for i, j := range w.jobs {
		if keep[i] {
			out = append(out, j)
		}
	}
	return out
}

// realPath is path, absolute, with every symbolic link resolved.
func realPath(path string) (string, error) {
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(r)
}

// globRoot is the directory a glob's matches lie in: its part before the first
// path element with a wildcard.
func globRoot(pattern string) string {
	dir := pattern
	for strings.ContainsAny(dir, "*?[") {
		dir = filepath.Dir(dir)
	}
	return dir
}

func linkErr(path string, err error) error {
	var se *safefile.Error
	if errors.As(err, &se) && errors.Is(err, safefile.ErrOutsideRoot) {
		return fmt.Errorf("%s: not linted: %v (links are followed only inside the directory being linted; name the target to lint it)", path, se.Err)
	}
	return err
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

// Selector says which inputs are linted: project.Project.
type Selector interface {
	// Select reports whether a file (or a data directory) is linted; named is
	// false for one found by walking a directory or expanding a glob.
	Select(path string, named bool) bool
	// Prune reports whether a walk leaves a directory out.
	Prune(dir string) bool
}

// Lint lints every input, files in parallel, and hands the results to emit
// in report order (sorted by path, ties in input order: the order Report.Sort
// gives), each as soon as every result before it is known. Memory holds the
// results that finished ahead of an earlier input, not the whole run's. sel says
// which inputs are linted, optsFor gives each its options. Once ctx is done no
// further input starts; the error list then ends with ctx.Err().
func Lint(ctx context.Context, args []string, sel Selector, optsFor func(string) linter.Options, jobsN int, stdin io.Reader, emit func(linter.FileResult)) []error {
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
			if ctx.Err() != nil {
				outs <- out{job: i, err: ctx.Err()}
				continue
			}
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
	cancelled := false
	for _, e := range jobErrs {
		switch {
		case e == nil:
		case e == ctx.Err():
			cancelled = true // once, at the end
		default:
			errs = append(errs, e)
		}
	}
	if cancelled {
		errs = append(errs, ctx.Err())
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
