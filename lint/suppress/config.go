package suppress

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/config"
)

// Ignores applies the ignore entries of a configuration across a run.
type Ignores struct {
	cfg     *config.Config
	matched []bool // the entry's path matched a linted file
	used    []bool // the entry dropped a finding
}

// NewIgnores prepares cfg's ignore entries.
func NewIgnores(cfg *config.Config) *Ignores {
	n := len(cfg.Ignores)
	return &Ignores{cfg: cfg, matched: make([]bool, n), used: make([]bool, n)}
}

// Apply drops the findings of one linted file that an entry covers.
func (ig *Ignores) Apply(path string, ds []lint.Diagnostic) []lint.Diagnostic {
	if len(ig.cfg.Ignores) == 0 {
		return ds
	}
	rel, ok := ig.cfg.Rel(path)
	if !ok {
		return ds
	}
	var mine []int
	for i, e := range ig.cfg.Ignores {
		if config.Match(e.Path, rel) {
			ig.matched[i] = true
			mine = append(mine, i)
		}
	}
	if len(mine) == 0 {
		return ds
	}
	out := ds[:0]
	for _, d := range ds {
		drop := false
		for _, i := range mine {
			e := ig.cfg.Ignores[i]
			if e.Rule == d.Rule && (e.Pointer == "" || d.Pointer == e.Pointer || strings.HasPrefix(d.Pointer, e.Pointer+"/")) {
				ig.used[i] = true
				drop = true
			}
		}
		if !drop {
			out = append(out, d)
		}
	}
	return out
}

// Unused returns a GEN-IGNORE-001 finding, at the entry's line of the
// configuration file, for each entry whose path matched a file of this run and
// that dropped nothing. Entries for files not linted in this run are not judged.
func (ig *Ignores) Unused() []lint.Diagnostic {
	var out []lint.Diagnostic
	for i, e := range ig.cfg.Ignores {
		if ig.matched[i] && !ig.used[i] {
			where := e.Rule
			if e.Pointer != "" {
				where += " at " + e.Pointer
			}
			out = append(out, unused(ig.cfg.Path, e.Line, e.Column, "ignore entry (%s in %s) matches no finding: remove it", where, e.Path))
		}
	}
	return out
}
