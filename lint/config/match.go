package config

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/aopkit/aopkit/lint"
)

// Rel returns path as a slash-separated path relative to the configuration's
// directory, the form its patterns match; ok is false when path lies outside it.
func (c *Config) Rel(path string) (rel string, ok bool) {
	dir := c.Dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.ToSlash(path), false
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return filepath.ToSlash(path), false
	}
	r, err := filepath.Rel(absDir, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(path), false
	}
	return filepath.ToSlash(r), true
}

// Match reports whether a pattern matches a relative path: the path itself, or a
// directory above it (so "vendor" and "vendor/**" both exclude vendor/a/b.json).
func Match(pattern, rel string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	if ok, _ := doublestar.Match(pattern, rel); ok {
		return true
	}
	for dir := rel; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			return false
		}
		dir = dir[:i]
		if ok, _ := doublestar.Match(strings.TrimSuffix(pattern, "/"), dir); ok {
			return true
		}
	}
}

func matchAny(patterns []string, rel string) bool {
	for _, p := range patterns {
		if Match(p, rel) {
			return true
		}
	}
	return false
}

// Selected reports whether files.include and files.exclude let path be linted.
// A path outside the configuration's directory is selected (the configuration does
// not speak of it).
func (c *Config) Selected(path string) bool {
	if len(c.Include) == 0 && len(c.Exclude) == 0 {
		return true // no pattern to match: Rel (two getwd) is not needed
	}
	rel, ok := c.Rel(path)
	if !ok {
		return true
	}
	if len(c.Include) > 0 && !matchAny(c.Include, rel) {
		return false
	}
	return !matchAny(c.Exclude, rel)
}

// ExcludedDir reports whether files.exclude matches a directory (so that a walk
// need not enter it).
func (c *Config) ExcludedDir(dir string) bool {
	if len(c.Exclude) == 0 {
		return false
	}
	rel, ok := c.Rel(dir)
	return ok && rel != "." && matchAny(c.Exclude, rel)
}

// FileSettings are the settings that apply to one file.
type FileSettings struct {
	Protocol string
	TaskType string
	Rules    map[string]Setting
}

// For returns the settings of path: the global rules, then every override whose
// files match it, in file order (a later override wins).
func (c *Config) For(path string) FileSettings {
	fs := FileSettings{Rules: c.Rules}
	if len(c.Overrides) == 0 {
		return fs
	}
	rel, ok := c.Rel(path)
	if !ok {
		return fs
	}
	copied := false
	for _, o := range c.Overrides {
		if !matchAny(o.Files, rel) {
			continue
		}
		if o.Protocol != "" {
			fs.Protocol = o.Protocol
		}
		if o.TaskType != "" {
			fs.TaskType = o.TaskType
		}
		if len(o.Rules) > 0 {
			if !copied {
				m := make(map[string]Setting, len(fs.Rules)+len(o.Rules))
				for k, v := range fs.Rules {
					m[k] = v
				}
				fs.Rules, copied = m, true
			}
			for k, v := range o.Rules {
				fs.Rules[k] = v
			}
		}
	}
	return fs
}

// Apply turns rules off and changes severities in ds, per the settings; it returns
// the diagnostics kept.
func (fs FileSettings) Apply(ds []lint.Diagnostic) []lint.Diagnostic {
	if len(fs.Rules) == 0 {
		return ds
	}
	out := ds[:0]
	for _, d := range ds {
		s, ok := fs.Rules[d.Rule]
		if ok && s.Off {
			continue
		}
		if ok && s.Severity != nil {
			d.Severity = *s.Severity
		}
		out = append(out, d)
	}
	return out
}
