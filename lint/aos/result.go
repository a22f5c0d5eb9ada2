package aos

import (
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
)

const specResult = "aos-0.1.0 §5.1.1 AOSSuccessResult Object"

var (
	// ResultDecision: allow, deny or modify.
	ResultDecision = ruleDocs.Rule(lint.Rule{
		ID: "AOS-RESULT-001", Protocol: ID, Kinds: []string{KindResponse}, Severity: lint.Error,
		Spec: specResult,
		Run:  checkDecision,
	})
	// ResultModify: modify comes with modifiedRequest.
	ResultModify = ruleDocs.Rule(lint.Rule{
		ID: "AOS-RESULT-002", Protocol: ID, Kinds: []string{KindResponse}, Severity: lint.Warning,
		Spec: specResult,
		Run:  checkModify,
	})
	// ResultModifiedRequest: modifiedRequest is itself a valid request.
	ResultModifiedRequest = ruleDocs.Rule(lint.Rule{
		ID: "AOS-RESULT-003", Protocol: ID, Kinds: []string{KindResponse}, Severity: lint.Error,
		Spec: specResult + " (modifiedRequest: AOSRequest)",
		Run:  checkModifiedRequest,
	})
)

var decisions = []string{"allow", "deny", "modify"}

func checkDecision(p *lint.Pass) {
	res := viewOf(p.Msg).result
	d := res.Get("decision")
	if res == nil || res.Kind != jsonread.Object || d == nil {
		return // the schema says it is required
	}
	if d.Kind != jsonread.String {
		p.Claim("/result/decision")
		p.Reportf("/result/decision", "decision is %s; it must be one of %s", kindOf(d), strings.Join(decisions, ", "))
		return
	}
	for _, x := range decisions {
		if d.Str == x {
			return
		}
	}
	p.Claim("/result/decision")
	p.Reportf("/result/decision", "decision %q is not an AOS decision; it must be one of %s", d.Str, strings.Join(decisions, ", "))
}

func checkModify(p *lint.Pass) {
	res := viewOf(p.Msg).result
	d := res.Get("decision").String()
	mr := res.Get("modifiedRequest")
	switch {
	case d == "modify" && mr == nil:
		p.Reportf("/result", "decision is \"modify\" but there is no modifiedRequest: add the modified request the agent must proceed with")
	case d != "modify" && d != "" && mr != nil:
		p.ReportSevf(lint.Info, "/result/modifiedRequest", "modifiedRequest is ignored with decision %q; it is relevant only when decision is \"modify\"", d)
	}
}

// singleRules are the rules run on a modifiedRequest (filled in init: they include
// checkModifiedRequest's own rule set, which would be an initialisation cycle).
var singleRules []*lint.Rule

func checkModifiedRequest(p *lint.Pass) {
	mr := viewOf(p.Msg).result.Get("modifiedRequest")
	if mr == nil {
		return
	}
	const base = "/result/modifiedRequest"
	if mr.Kind != jsonread.Object {
		p.Claim(base)
		p.Reportf(base, "modifiedRequest is %s; it must be an AOS request object", kindOf(mr))
		return
	}
	if !mr.Has("method") {
		p.Claim(base)
		p.Reportf(base, "modifiedRequest has no \"method\": it must be a complete AOS request (jsonrpc, id, method, params)")
		return
	}
	kind, dialect, _ := Detect(mr, "")
	sub := &lint.Message{Path: p.Msg.Path, Protocol: ID, Kind: kind, Dialect: dialect, Root: mr, Raw: p.Msg.Raw, RawAt: p.Msg.RawAt, Pos: p.Msg.Pos,
		Index: p.Msg.Index, From: p.Msg.From, At: p.Msg.At, Session: p.Msg.Session, Opts: p.Msg.Opts}
	for _, d := range LintSub(sub) {
		p.ReportSevf(d.Severity, base+d.Pointer, "modifiedRequest: %s (%s)", d.Message, d.Rule)
	}
}

// LintSub runs the single-message rules and the schema of m's kind on m (a request
// nested in another message) and returns the findings with pointers relative to m.
func LintSub(m *lint.Message) []lint.Diagnostic {
	var out []lint.Diagnostic
	var claimed []string
	for _, r := range singleRules {
		if !r.AppliesTo(m.Protocol, m.Kind) {
			continue
		}
		sp := lint.NewPass(r, m)
		func() {
			defer func() {
				if e := recover(); e != nil {
					sp.ReportSevf(lint.Error, "", "internal error in rule %s: %v (please report this)", r.ID, e)
				}
			}()
			r.Run(sp)
		}()
		out = append(out, sp.Diagnostics()...)
		claimed = append(claimed, sp.Claimed()...)
	}
	if file := SchemaFile(m.Kind); file != "" {
		errs, err := schema.Validate(file, m.Root)
		if err == nil {
			for _, e := range preciseSchemaErrors(errs) {
				if !lint.IsClaimed(claimed, e.Pointer) {
					out = append(out, lint.Diagnostic{Rule: Schema.ID, Severity: lint.Error, Pointer: e.Pointer, Message: e.Message})
				}
			}
		}
	}
	lint.SortDiagnostics(out)
	return out
}
