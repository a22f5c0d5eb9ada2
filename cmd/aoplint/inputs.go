package main

import (
	"container/heap"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint/linter"
)

// lintable says which files a directory walk picks up.
func lintable(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json", ".jsonl", ".ndjson", ".aop", ".txt":
		return true
	}
	return false
}

// job is one unit of work: a file, a data directory, or standard input.
type job struct {
	path  string
	dir   *linter.DirLinter
	stdin bool
}

// expand turns the arguments into jobs: files as named, directories walked
// recursively (hidden entries skipped; a directory a DirLinter claims is linted as a
// whole), globs expanded, "-" for standard input.
func expand(args []string) ([]job, []error) {
	var jobs []job
	var errs []error
	for _, a := range args {
		if a == "-" {
			jobs = append(jobs, job{path: "<stdin>", stdin: true})
			continue
		}
		paths := []string{a}
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
			paths = m
		}
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !st.IsDir() {
				jobs = append(jobs, job{path: p})
				continue
			}
			if d := linter.DirLinterFor(p); d != nil {
				jobs = append(jobs, job{path: p, dir: d})
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
						if d := linter.DirLinterFor(path); d != nil {
							jobs = append(jobs, job{path: path, dir: d})
							return fs.SkipDir
						}
					}
					return nil
				}
				if e.Type().IsRegular() && lintable(name) {
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

// lintInputs lints every input, files in parallel, and hands the results to emit
// in report order (sorted by path, ties in input order: the order Report.Sort
// gives), each as soon as every result before it is known. Memory holds the
// results that finished ahead of an earlier input, not the whole run's.
func lintInputs(args []string, opts linter.Options, jobsN int, stdin io.Reader, emit func(linter.FileResult)) []error {
	jobs, errs := expand(args)
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
	go func() {
		var wg sync.WaitGroup
		sem := make(chan struct{}, jobsN)
		for _, i := range order {
			j := jobs[i]
			if j.stdin {
				r, err := linter.LintReader(j.path, stdin, opts)
				outs <- out{job: i, res: []linter.FileResult{r}, err: err}
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func(i int, j job) {
				defer func() { <-sem; wg.Done() }()
				if j.dir != nil {
					res, err := j.dir.Lint(j.path, opts)
					outs <- out{job: i, res: res, err: err}
					return
				}
				r, err := linter.LintFile(j.path, opts)
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
