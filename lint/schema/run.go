package schema

import "github.com/aopkit/aopkit/lint"

// Run is the Run of a protocol's schema rule: it validates the message against
// the schema its protocol names for the message's kind (lint.Protocol.Schema).
// It lives here, beside the validator, so that a protocol's rules need not
// import the driver (lint/linter).
func Run(p *lint.Pass) { RunFiltered(p, nil) }

// RunFiltered is Run with the errors passed through keep first (nil keeps
// them all): a protocol that drops gojsonschema's summaries another error
// already explains (aos) says which it keeps.
func RunFiltered(p *lint.Pass, keep func([]Error) []Error) {
	m := p.Msg
	if m.Root == nil {
		return
	}
	proto := lint.LookupProtocol(m.Protocol)
	if proto == nil || proto.Schema == nil {
		return
	}
	file := proto.Schema(m.Kind)
	if file == "" {
		return
	}
	errs, err := Validate(file, m.Root)
	if err != nil {
		p.Reportf("", "internal error: schema %s: %v", file, err)
		return
	}
	if keep != nil {
		errs = keep(errs)
	}
	for _, e := range errs {
		p.Reportf(e.Pointer, "%s", e.Message)
	}
}
