// Package aos is the reference engine of AOS 0.1.0 (specs/aos-0.1.0.md): the
// guardian side, once. Drive plays it against an agent through the harness
// (aopconform run, the engine's tests on virtual time, the reference transcripts):
// it serves the Guardian (JSON-RPC 2.0 over HTTP, allow, deny or modify from a
// policy) to the agent and records every exchange in the harness's transcript.
// The other direction, aopkit playing the agent against a guardian at a URL, is
// the Prober (aopconform guardian).
//
// What the guardian refuses with a JSON-RPC error before it decides is
// aoplint's decision (admit.go: an error of lint/aos's rules of one message
// refuses a request; Exceptions lists the deliberate differences); the
// JSON-RPC code and text are only the presentation of the finding.
package aos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/aopkit/aopkit/conform/engine/jsonval"
	"github.com/aopkit/aopkit/internal/safefile"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// Policy is the guardian's rule file: the first rule that matches decides; when none
// does, Default decides.
//
//	{
//	  "default": {"decision": "allow", "message": "Allowed by default policy."},
//	  "rules": [
//	    {"id": "no-delete", "tool": "delete_email", "decision": "deny",
//	     "message": "Deleting mail is not allowed.", "reasonCode": ["DESTRUCTIVE"]},
//	    {"id": "external-mail", "tool": "send_email",
//	     "args": {"to": {"contains": "@external.example"}},
//	     "decision": "modify", "set": {"to": "review@company.example"},
//	     "message": "External mail goes to review first."}
//	  ]
//	}
type Policy struct {
	Default Verdict `json:"default"`
	Rules   []Rule  `json:"rules"`
}

// Verdict is what a rule answers.
type Verdict struct {
	Decision   string         `json:"decision"`
	Message    string         `json:"message,omitempty"`
	Reasoning  string         `json:"reasoning,omitempty"`
	ReasonCode []string       `json:"reasonCode,omitempty"`
	Data       map[string]any `json:"data,omitempty"`
}

// Rule matches a request by method, tool name and argument values.
type Rule struct {
	ID string `json:"id"`
	// Method limits the rule to one AOS method; empty matches every method but ping.
	Method string `json:"method,omitempty"`
	// Tool is the tool name: toolCallRequest.toolId, or params.name of an MCP
	// tools/call wrapped in protocols/MCP. "*" matches any tool call.
	Tool string `json:"tool,omitempty"`
	// Args match argument values by name; every matcher must hold.
	Args map[string]Matcher `json:"args,omitempty"`
	Verdict
	// Set replaces (or adds) argument values in the modified request (modify only).
	Set map[string]any `json:"set,omitempty"`
	re  map[string]*regexp.Regexp
}

// Matcher tests one argument value. Exactly one field is set.
type Matcher struct {
	Equals   any    `json:"equals,omitempty"`
	Contains string `json:"contains,omitempty"`
	Regex    string `json:"regex,omitempty"`
	Present  *bool  `json:"present,omitempty"`
}

// DefaultPolicy allows everything.
func DefaultPolicy() *Policy {
	return &Policy{Default: Verdict{Decision: spec.Allow, Message: "Allowed by default policy."}}
}

// LoadPolicy reads a policy file: a regular file of at most safefile.MaxConfig
// bytes.
func LoadPolicy(path string) (*Policy, error) {
	data, err := safefile.ReadFile(path, safefile.MaxConfig)
	if err != nil {
		return nil, err
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy decodes and checks a policy.
func ParsePolicy(data []byte) (*Policy, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Policy
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("policy: %v", err)
	}
	if p.Default.Decision == "" {
		p.Default = DefaultPolicy().Default
	}
	if p.Default.Decision == spec.Modify {
		return nil, fmt.Errorf("policy: the default decision must be allow or deny")
	}
	if err := checkVerdict(&p.Default, "default"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range p.Rules {
		r := &p.Rules[i]
		where := fmt.Sprintf("rules[%d]", i)
		if r.ID == "" {
			return nil, fmt.Errorf("policy: %s has no id", where)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("policy: duplicate rule id %q", r.ID)
		}
		seen[r.ID] = true
		if err := checkVerdict(&r.Verdict, where); err != nil {
			return nil, err
		}
		if r.Method != "" && !spec.IsMethod(r.Method) {
			return nil, fmt.Errorf("policy: %s: unknown method %q", where, r.Method)
		}
		if r.Decision == spec.Modify && (r.Tool == "" || len(r.Set) == 0) {
			return nil, fmt.Errorf("policy: %s: modify needs a tool and the argument values to set", where)
		}
		if r.Decision != spec.Modify && len(r.Set) > 0 {
			return nil, fmt.Errorf("policy: %s: set is only for modify", where)
		}
		r.re = map[string]*regexp.Regexp{}
		for name, m := range r.Args {
			n := 0
			if m.Equals != nil {
				n++
			}
			if m.Contains != "" {
				n++
			}
			if m.Present != nil {
				n++
			}
			if m.Regex != "" {
				n++
				re, err := regexp.Compile(m.Regex)
				if err != nil {
					return nil, fmt.Errorf("policy: %s: args.%s: %v", where, name, err)
				}
				r.re[name] = re
			}
			if n != 1 {
				return nil, fmt.Errorf("policy: %s: args.%s needs exactly one of equals, contains, regex, present", where, name)
			}
		}
	}
	return &p, nil
}

func checkVerdict(v *Verdict, where string) error {
	switch v.Decision {
	case spec.Allow, spec.Deny, spec.Modify:
	default:
		return fmt.Errorf("policy: %s: decision %q must be allow, deny or modify", where, v.Decision)
	}
	if v.Message == "" {
		v.Message = fmt.Sprintf("Decision %s by %s.", v.Decision, where)
	}
	return nil
}

// call is what a policy sees of a request.
type call struct {
	Method string
	Tool   string // "" when the request is not a tool call
	Args   map[string]any
}

// Match returns the rule that decides c, or nil for the default.
func (p *Policy) Match(c call) *Rule {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.Method != "" && r.Method != c.Method {
			continue
		}
		if r.Tool != "" && (c.Tool == "" || (r.Tool != "*" && r.Tool != c.Tool)) {
			continue
		}
		ok := true
		for name, m := range r.Args {
			v, present := c.Args[name]
			switch {
			case m.Present != nil:
				ok = present == *m.Present
			case !present:
				ok = false
			case m.Equals != nil:
				ok = jsonEqual(v, m.Equals)
			case m.Contains != "":
				s, isStr := v.(string)
				ok = isStr && strings.Contains(s, m.Contains)
			case m.Regex != "":
				s, isStr := v.(string)
				ok = isStr && r.re[name].MatchString(s)
			}
			if !ok {
				break
			}
		}
		if ok {
			return r
		}
	}
	return nil
}

// jsonEqual compares two JSON values by their canonical encoding.
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(normalize(a))
	jb, err2 := json.Marshal(normalize(b))
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// normalize turns json.Number into float64 so that 1 and 1.0 compare equal.
func normalize(v any) any { return jsonval.Map(v, numberAsFloat) }

func numberAsFloat(v any) any {
	x, ok := v.(json.Number)
	if !ok {
		return v
	}
	f, err := x.Float64()
	if err != nil {
		return x.String()
	}
	return f
}
