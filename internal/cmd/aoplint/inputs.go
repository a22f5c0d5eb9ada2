package aoplintcmd

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

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

// lintInputs lints every input, files in parallel; results come back in input
// order (the report sorts them).
func lintInputs(args []string, opts linter.Options, jobsN int, stdin io.Reader) ([]linter.FileResult, []error) {
	jobs, errs := expand(args)
	if jobsN <= 0 {
		jobsN = runtime.GOMAXPROCS(0)
	}
	type out struct {
		res []linter.FileResult
		err error
	}
	outs := make([]out, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobsN)
	for i, j := range jobs {
		if j.stdin {
			start := time.Now()
			r, err := linter.LintReader(j.path, stdin, opts)
			r.Elapsed = time.Since(start)
			outs[i] = out{res: []linter.FileResult{r}, err: err}
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, j job) {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			if j.dir != nil {
				res, err := j.dir.Lint(j.path, opts)
				// A data directory is linted as a whole: its files share its time.
				for k := range res {
					res[k].Elapsed = time.Since(start) / time.Duration(len(res))
				}
				outs[i] = out{res: res, err: err}
				return
			}
			r, err := linter.LintFile(j.path, opts)
			r.Elapsed = time.Since(start)
			outs[i] = out{res: []linter.FileResult{r}, err: err}
		}(i, j)
	}
	wg.Wait()
	var results []linter.FileResult
	for _, o := range outs {
		if o.err != nil {
			errs = append(errs, o.err)
			continue
		}
		results = append(results, o.res...)
	}
	return results, errs
}
