// Package revdiff keeps the findings on lines changed since a git revision:
// aoplint --new-from-rev REV, as golangci-lint's. The changed lines are those
// `git diff -U0 REV` adds or changes in the work tree (staged or not), and every
// line of an untracked file that git does not ignore.
package revdiff

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// span is the lines first..last, inclusive.
type span struct{ first, last int }

// Changes are the changed lines of each file of a work tree, by path relative to
// its top directory (slash-separated).
type Changes struct {
	Top string
	Rev string
	// lines of a changed file; nil for a file that is new as a whole.
	files map[string][]span
	mu    sync.Mutex
	rel   map[string]string // path as given → key in files ("" outside Top)
}

// Changed collects the lines changed since rev in the git work tree that holds
// dir. An error says that dir is in no work tree or that rev names no commit.
func Changed(dir, rev string) (*Changes, error) {
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--new-from-rev needs a git work tree: %v", err)
	}
	top = strings.TrimSpace(top)
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	if _, err := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("--new-from-rev %s: no such commit", rev)
	}
	diff, err := git(top, "-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-prefix", "-U0", rev, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %v", rev, err)
	}
	c := &Changes{Top: top, Rev: rev, files: map[string][]span{}, rel: map[string]string{}}
	if err := c.parse(diff); err != nil {
		return nil, err
	}
	untracked, err := git(top, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %v", err)
	}
	for _, f := range strings.Split(untracked, "\x00") {
		if f != "" {
			c.files[f] = nil
		}
	}
	return c, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%s", msg)
		}
		return "", err
	}
	return string(out), nil
}

// parse reads a unified diff without context (-U0, --no-prefix): "+++ PATH"
// starts a file, "@@ -a,b +c,d @@" adds lines c..c+d-1 to it (d is 1 when left
// out; 0 is a deletion, which adds no line).
func (c *Changes) parse(diff string) error {
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(diff))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "+++ "):
			cur = strings.TrimSuffix(strings.TrimPrefix(l, "+++ "), "\t")
			if strings.HasPrefix(cur, `"`) {
				if u, err := strconv.Unquote(cur); err == nil {
					cur = u
				}
			}
			if cur == "/dev/null" {
				cur = "" // deleted
				continue
			}
			if _, ok := c.files[cur]; !ok {
				c.files[cur] = []span{}
			}
		case strings.HasPrefix(l, "@@ ") && cur != "":
			f := strings.Fields(l)
			if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
				return fmt.Errorf("git diff: unexpected hunk header %q", l)
			}
			start, n := f[2][1:], "1"
			if i := strings.IndexByte(start, ','); i >= 0 {
				start, n = start[:i], start[i+1:]
			}
			first, err1 := strconv.Atoi(start)
			count, err2 := strconv.Atoi(n)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("git diff: unexpected hunk header %q", l)
			}
			if count > 0 {
				c.files[cur] = append(c.files[cur], span{first, first + count - 1})
			}
		}
	}
	return sc.Err()
}

// key is path relative to the top directory, slash-separated; ok false outside it.
func (c *Changes) key(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.rel[path]; ok {
		return k, k != ""
	}
	k := ""
	if abs, err := filepath.Abs(path); err == nil {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(dir, filepath.Base(abs))
		}
		if r, err := filepath.Rel(c.Top, abs); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			k = filepath.ToSlash(r)
		}
	}
	c.rel[path] = k
	return k, k != ""
}

// New reports whether line of the file at path changed since the revision (line
// 0, a finding on the file as a whole: whether any line of it did).
func (c *Changes) New(path string, line int) bool {
	k, ok := c.key(path)
	if !ok {
		return false
	}
	spans, changed := c.files[k]
	if !changed {
		return false
	}
	if spans == nil || line <= 0 {
		return true // an untracked file, or the file as a whole
	}
	for _, s := range spans {
		if line >= s.first && line <= s.last {
			return true
		}
	}
	return false
}

// Filter keeps the findings of r on changed lines. Findings past the per-input
// limit (NotKept) have no line: they stay counted for a file with a changed
// line, and are dropped with the file otherwise. Standard input (stdinName) is
// kept whole: it has no revision to compare with.
func (c *Changes) Filter(r linter.FileResult, stdinName string) linter.FileResult {
	if r.Path == stdinName {
		return r
	}
	out := make([]lint.Diagnostic, 0, len(r.Diagnostics))
	for _, d := range r.Diagnostics {
		p := d.Path
		if p == "" {
			p = r.Path
		}
		if c.New(p, d.Line) {
			out = append(out, d)
		}
	}
	r.Diagnostics = out
	if r.NotKept != nil && !c.New(r.Path, 0) {
		r.NotKept = nil
	}
	return r
}
