package aos

import (
	"fmt"
	"slices"

	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// Fault is a way the reference guardian can misbehave on purpose, to certify the
// checks that judge a guardian (aopconform guardian: the aos case of certifying
// the orchestrator side). Each one changes the guardian's answers as named.
type Fault struct {
	Name string
	Doc  string
	// Probes are the guardian-mode checks that catch it.
	Probes []string
}

// Faults of the reference guardian.
func Faults() []Fault {
	return []Fault{
		{Name: "string-ids", Doc: "answers every id as a string: 1 comes back as \"1\" (§3.12.1: the same value and type)",
			Probes: []string{"aos/guardian/ping", "aos/guardian/method-not-found", "aos/guardian/invalid-request", "aos/guardian/jsonrpc-version"}},
		{Name: "allow-invalid", Doc: "answers requests it should refuse (malformed, unknown method, invalid params) with an allow decision instead of a JSON-RPC error (§6.1)",
			Probes: []string{"aos/guardian/parse-error", "aos/guardian/invalid-request", "aos/guardian/jsonrpc-version", "aos/guardian/method-not-found", "aos/guardian/invalid-params"}},
		{Name: "unknown-decision", Doc: "decides \"approve\" instead of allow (§5.1.1: allow, deny or modify)",
			Probes: []string{"aos/guardian/decision"}},
		{Name: "error-string", Doc: "writes error as a string, not an {code, message} object (§3.13)",
			Probes: []string{"aos/guardian/parse-error", "aos/guardian/invalid-request", "aos/guardian/jsonrpc-version", "aos/guardian/method-not-found", "aos/guardian/invalid-params"}},
	}
}

// checkFault reports an unknown fault name.
func checkFault(name string) error {
	if name == "" || slices.ContainsFunc(Faults(), func(f Fault) bool { return f.Name == name }) {
		return nil
	}
	return fmt.Errorf("the aos engine has no fault %q", name)
}

// misanswer turns a correct answer into the fault's (the answer itself when the
// guardian plays no fault).
func (g *Guardian) misanswer(resp *response) any {
	switch g.Fault {
	case "string-ids":
		if resp.ID != nil {
			cp := *resp
			cp.ID = fmt.Sprint(resp.ID)
			return &cp
		}
	case "allow-invalid":
		if resp.Error != nil {
			return &response{JSONRPC: "2.0", ID: resp.ID, Result: map[string]any{"decision": spec.Allow, "message": "Allowed."}}
		}
	case "unknown-decision":
		if res, ok := resp.Result.(map[string]any); ok && res["decision"] == spec.Allow {
			cp := *resp
			mod := map[string]any{}
			for k, v := range res {
				mod[k] = v
			}
			mod["decision"] = "approve"
			cp.Result = mod
			return &cp
		}
	case "error-string":
		if resp.Error != nil {
			return map[string]any{"jsonrpc": "2.0", "id": resp.ID, "error": resp.Error.Message}
		}
	}
	return resp
}
