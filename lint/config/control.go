package config

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// RuleControl is the command line's choice of rules, on top of the configuration
// (as golangci-lint's --enable, --disable and --enable-only): each entry a rule ID
// or a glob over IDs (AOP2-*, GEN-JSON-00?), matched without regard to case.
type RuleControl struct {
	// Enable turns rules on that the configuration turned off.
	Enable []string
	// Disable turns rules off.
	Disable []string
	// EnableOnly turns every other rule off (and these on); it excludes Enable and
	// Disable.
	EnableOnly []string
}

// Empty reports whether rc changes nothing.
func (rc RuleControl) Empty() bool {
	return len(rc.Enable) == 0 && len(rc.Disable) == 0 && len(rc.EnableOnly) == 0
}

// MatchRules returns the IDs of the rules a pattern (an ID or a glob) names, sorted;
// an error for a bad glob or a pattern that names no rule.
func MatchRules(pattern string) ([]string, error) {
	p := strings.ToUpper(strings.TrimSpace(pattern))
	if p == "" {
		return nil, fmt.Errorf("an empty rule pattern")
	}
	if _, err := path.Match(p, ""); err != nil {
		return nil, fmt.Errorf("bad rule pattern %q: %v", pattern, err)
	}
	var ids []string
	for _, r := range lint.Rules() {
		if ok, _ := path.Match(p, strings.ToUpper(r.ID)); ok {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no rule matches %q (aoplint rules lists them)", pattern)
	}
	sort.Strings(ids)
	return ids, nil
}

func matchAll(patterns []string) (map[string]bool, error) {
	set := map[string]bool{}
	for _, pat := range patterns {
		for _, p := range strings.Split(pat, ",") {
			ids, err := MatchRules(p)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				set[id] = true
			}
		}
	}
	return set, nil
}

// Control applies rc to the configuration: rules it disables are off everywhere
// (overrides included), rules it enables are on everywhere (a severity the
// configuration gives them stays). An error names a pattern that matches no
// rule, a rule both enabled and disabled, or --enable-only with the others.
func (c *Config) Control(rc RuleControl) error {
	if rc.Empty() {
		return nil
	}
	if len(rc.EnableOnly) > 0 && (len(rc.Enable) > 0 || len(rc.Disable) > 0) {
		return fmt.Errorf("--enable-only excludes --enable and --disable")
	}
	on, err := matchAll(append(append([]string{}, rc.Enable...), rc.EnableOnly...))
	if err != nil {
		return err
	}
	off, err := matchAll(rc.Disable)
	if err != nil {
		return err
	}
	for id := range on {
		if off[id] {
			return fmt.Errorf("rule %s is both enabled and disabled", id)
		}
	}
	if len(rc.EnableOnly) > 0 {
		for _, r := range lint.Rules() {
			if !on[r.ID] {
				off[r.ID] = true
			}
		}
	}
	apply := func(m map[string]Setting) map[string]Setting {
		out := make(map[string]Setting, len(m)+len(off))
		for k, v := range m {
			if on[k] && v.Off {
				continue // on, at the rule's own severity
			}
			out[k] = v
		}
		for id := range off {
			out[id] = Setting{Off: true}
		}
		return out
	}
	c.Rules = apply(c.Rules)
	for i := range c.Overrides {
		if len(c.Overrides[i].Rules) > 0 {
			c.Overrides[i].Rules = apply(c.Overrides[i].Rules)
		}
	}
	return nil
}
