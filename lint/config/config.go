// Package config reads aoplint's configuration file, .aoplint.yaml: which files to
// lint, the protocol and aop-output task type of a path pattern, rules turned off or
// given another severity (globally and per path), suppressed findings, the output
// format. Its JSON Schema is schemas/aoplint/config.schema.json; docs/configuration.md
// documents every key.
//
// Unknown keys and bad values are errors that name the file, line and column.
package config

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/output"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// Names are the file names Find looks for, in order.
var Names = []string{".aoplint.yaml", ".aoplint.yml"}

// Unrecognised says what happens to a file that carries no protocol marker.
const (
	// UnrecognisedAuto skips such files found by walking a directory and reports
	// files named on the command line (GEN-DETECT-001).
	UnrecognisedAuto = "auto"
	// UnrecognisedSkip skips them wherever they come from.
	UnrecognisedSkip = "skip"
	// UnrecognisedError lints every candidate file, marker or not.
	UnrecognisedError = "error"
)

// Config is a parsed .aoplint.yaml.
type Config struct {
	// Path is the file it was read from ("" for the defaults); Dir is the directory
	// its path patterns are relative to.
	Path string
	Dir  string

	Format       string
	FailOn       string
	Baseline     string
	Include      []string
	Exclude      []string
	Unrecognised string
	Rules        map[string]Setting // by rule ID
	Overrides    []Override
	Ignores      []Ignore
}

// Setting is a rule's setting: off, or on with a severity.
type Setting struct {
	Off      bool
	Severity *lint.Severity // nil: the rule's own
	Line     int
}

// Override applies settings to the files its patterns match.
type Override struct {
	Files    []string
	Protocol string
	TaskType string
	Rules    map[string]Setting
	Line     int
}

// Ignore suppresses the findings of one rule in the files Path matches, at Pointer
// (and below it) when Pointer is set.
type Ignore struct {
	Path    string
	Rule    string
	Pointer string
	Reason  string
	Line    int
	Column  int
}

// Default is the configuration without a file.
func Default() *Config {
	return &Config{Unrecognised: UnrecognisedAuto, Rules: map[string]Setting{}}
}

// Error is a problem in a configuration file, at a line and column.
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Errors are every problem found in one file.
type Errors []*Error

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Find looks for a configuration file in dir and then in each parent directory,
// like golangci-lint; it returns "" when there is none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		for _, n := range Names {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Load reads and checks the file at path: a regular file of at most
// safefile.MaxConfig bytes (a FIFO, a device or a directory is refused).
func Load(path string) (*Config, error) {
	data, err := safefile.ReadFile(path, safefile.MaxConfig)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(path, data)
	if c != nil {
		c.Dir = filepath.Dir(abs)
	}
	return c, err
}

// Parse reads a configuration from data; name is used in error messages. It
// returns every problem it finds (Errors), not only the first.
func Parse(name string, data []byte) (*Config, error) {
	c := Default()
	c.Path = name
	p := &parser{file: name, c: c}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err == io.EOF {
		return c, nil // comments only
	} else if err != nil {
		return nil, Errors{p.yamlError(err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{File: name, Line: extra.Line, Column: extra.Column, Msg: "a second YAML document: the configuration is one document"}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	p.top(root)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return c, nil
}

type parser struct {
	file string
	c    *Config
	errs Errors
}

var lineRE = "line "

// yamlError turns a yaml.v3 syntax error ("yaml: line 3: ...") into an Error.
func (p *parser) yamlError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if strings.HasPrefix(msg, lineRE) {
		rest := msg[len(lineRE):]
		if i := strings.Index(rest, ":"); i > 0 {
			fmt.Sscanf(rest[:i], "%d", &line)
			msg = strings.TrimSpace(rest[i+1:])
		}
	}
	return &Error{File: p.file, Line: line, Column: 1, Msg: "invalid YAML: " + msg}
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: n.Line, Column: n.Column, Msg: fmt.Sprintf(format, args...)})
}

// Keys are the top-level keys, as in the JSON Schema.
var Keys = []string{"baseline", "fail-on", "files", "format", "ignore", "overrides", "rules"}

func (p *parser) top(n *yaml.Node) {
	p.mapping(n, "the configuration", map[string]func(k, v *yaml.Node){
		"format": func(_, v *yaml.Node) {
			if s, ok := p.str(v, "format"); ok {
				if !slices.Contains(output.Formats, s) {
					p.errorf(v, "unknown format %q: want one of %s", s, strings.Join(output.Formats, ", "))
				}
				p.c.Format = s
			}
		},
		"fail-on": func(_, v *yaml.Node) {
			if s, ok := p.str(v, "fail-on"); ok {
				if s != "error" && s != "warning" {
					p.errorf(v, "unknown fail-on %q: want error or warning", s)
				}
				p.c.FailOn = s
			}
		},
		"baseline": func(_, v *yaml.Node) {
			if s, ok := p.str(v, "baseline"); ok {
				p.c.Baseline = s
			}
		},
		"files": func(_, v *yaml.Node) {
			p.mapping(v, "files", map[string]func(k, v *yaml.Node){
				"include": func(_, v *yaml.Node) { p.c.Include = p.globs(v, "files.include") },
				"exclude": func(_, v *yaml.Node) { p.c.Exclude = p.globs(v, "files.exclude") },
				"unrecognised": func(_, v *yaml.Node) {
					if s, ok := p.str(v, "files.unrecognised"); ok {
						if s != UnrecognisedAuto && s != UnrecognisedSkip && s != UnrecognisedError {
							p.errorf(v, "unknown files.unrecognised %q: want auto, skip or error", s)
						}
						p.c.Unrecognised = s
					}
				},
			})
		},
		"rules": func(_, v *yaml.Node) { p.c.Rules = p.rules(v, "rules") },
		"overrides": func(_, v *yaml.Node) {
			if v.Kind != yaml.SequenceNode {
				p.errorf(v, "overrides must be a list of {files, protocol, task-type, rules}")
				return
			}
			for _, it := range v.Content {
				o := Override{Line: it.Line, Rules: map[string]Setting{}}
				p.mapping(it, "an override", map[string]func(k, v *yaml.Node){
					"files": func(_, v *yaml.Node) { o.Files = p.globs(v, "overrides.files") },
					"protocol": func(_, v *yaml.Node) {
						if s, ok := p.str(v, "protocol"); ok {
							if lint.LookupProtocol(s) == nil {
								p.errorf(v, "unknown protocol %q: want one of %s", s, strings.Join(lint.ProtocolIDs(), ", "))
							}
							o.Protocol = s
						}
					},
					"task-type": func(_, v *yaml.Node) {
						if s, ok := p.str(v, "task-type"); ok {
							if _, known := spec.TaskTypes[s]; !known {
								p.errorf(v, "unknown task-type %q: want one of %s", s, strings.Join(spec.TaskTypeNames(), ", "))
							}
							o.TaskType = s
						}
					},
					"rules": func(_, v *yaml.Node) { o.Rules = p.rules(v, "overrides.rules") },
				})
				if it.Kind == yaml.MappingNode && len(o.Files) == 0 {
					p.errorf(it, "an override needs files: the path patterns it applies to")
				}
				p.c.Overrides = append(p.c.Overrides, o)
			}
		},
		"ignore": func(_, v *yaml.Node) {
			if v.Kind != yaml.SequenceNode {
				p.errorf(v, "ignore must be a list of {path, rule, pointer, reason}")
				return
			}
			for _, it := range v.Content {
				ig := Ignore{Line: it.Line, Column: it.Column}
				p.mapping(it, "an ignore entry", map[string]func(k, v *yaml.Node){
					"path": func(_, v *yaml.Node) {
						if s, ok := p.str(v, "path"); ok {
							if !doublestar.ValidatePattern(s) {
								p.errorf(v, "bad path pattern %q", s)
							}
							ig.Path = s
						}
					},
					"rule": func(_, v *yaml.Node) {
						if s, ok := p.str(v, "rule"); ok {
							ig.Rule = p.ruleID(v, s)
						}
					},
					"pointer": func(_, v *yaml.Node) {
						if s, ok := p.str(v, "pointer"); ok {
							if s != "" && !strings.HasPrefix(s, "/") {
								p.errorf(v, "pointer %q is no JSON Pointer: it starts with / (RFC 6901), such as /payload/outcome", s)
							}
							ig.Pointer = s
						}
					},
					"reason": func(_, v *yaml.Node) { ig.Reason, _ = p.str(v, "reason") },
				})
				if it.Kind == yaml.MappingNode && (ig.Path == "" || ig.Rule == "") {
					p.errorf(it, "an ignore entry needs path and rule")
				}
				p.c.Ignores = append(p.c.Ignores, ig)
			}
		},
	})
}

// mapping walks a mapping node, calling the handler of each key; unknown and
// repeated keys are errors.
func (p *parser) mapping(n *yaml.Node, what string, handlers map[string]func(k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping of keys to values", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			known := slices.Sorted(maps.Keys(handlers))
			p.errorf(k, "unknown key %q in %s: want one of %s", k.Value, what, strings.Join(known, ", "))
			continue
		}
		if seen[k.Value] {
			p.errorf(k, "key %q given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		h(k, v)
	}
}

func (p *parser) str(v *yaml.Node, what string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.errorf(v, "%s must be a string", what)
		return "", false
	}
	return v.Value, true
}

func (p *parser) globs(v *yaml.Node, what string) []string {
	var out []string
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	for _, it := range items {
		s, ok := p.str(it, what+" (a path pattern or a list of them)")
		if !ok {
			continue
		}
		if !doublestar.ValidatePattern(s) {
			p.errorf(it, "bad path pattern %q", s)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (p *parser) ruleID(v *yaml.Node, s string) string {
	r := lint.LookupRule(s)
	if r == nil {
		p.errorf(v, "no rule %q (aoplint rules lists them)", s)
		return s
	}
	return r.ID
}

func (p *parser) rules(v *yaml.Node, what string) map[string]Setting {
	out := map[string]Setting{}
	if v.Kind != yaml.MappingNode {
		p.errorf(v, "%s must map rule IDs to off, on, error, warning or info", what)
		return out
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		id := p.ruleID(k, k.Value)
		if _, dup := out[id]; dup {
			p.errorf(k, "rule %s given twice", id)
			continue
		}
		s, ok := p.str(val, "a rule's setting")
		if !ok {
			continue
		}
		set := Setting{Line: k.Line}
		switch strings.ToLower(s) {
		case "off", "false":
			set.Off = true
		case "on", "true":
		default:
			sev, err := lint.ParseSeverity(s)
			if err != nil {
				p.errorf(val, "rule %s: unknown setting %q: want off, on, error, warning or info", id, s)
				continue
			}
			set.Severity = &sev
		}
		out[id] = set
	}
	return out
}
