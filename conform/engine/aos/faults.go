package aos

import (
	"fmt"

	"github.com/aopkit/aopkit/conform/fault"
	spec "github.com/aopkit/aopkit/lint/spec/aos"
)

// Faults lists the reference guardian's faults, sorted by name. Each fault's
// Fails is exact: an orchestrator-side run of it (`aopconform run --side orchestrator --protocol
// aos -- aopconform engine --protocol aos --fault NAME`) fails exactly those
// checks. The guardian's own probe run (a Prober against a Guardian playing the
// fault, as `aopconform guardian URL` probes one) fails exactly the probe
// checks among them (ProbeChecks): the others are no probe's (bind/listens is
// where the served guardian listens, messages-valid is aoplint's reading of
// the answers), so a fault that names no probe, no-listen, passes every probe
// when the prober reaches it.
func Faults() []fault.Fault { return faults.List() }

// faults are the guardian's faults, each declared once below.
var faults fault.Catalogue

// The guardian's faults.
var (
	FaultStringIDs = faults.Add(fault.Fault{Name: "string-ids", Doc: "answers every id as a string: 1 comes back as \"1\" (§3.12.1: the same value and type)",
		Fails: []string{"aos/orch/5.3/ping", "aos/orch/6.1/method-not-found", "aos/orch/6.1/invalid-request", "aos/orch/3.12.1/jsonrpc-version"}, Exact: true})
	FaultAllowInvalid = faults.Add(fault.Fault{Name: "allow-invalid", Doc: "answers requests it should refuse (malformed, unknown method, invalid params) with an allow decision instead of a JSON-RPC error (§6.1)",
		Fails: []string{"aos/orch/6.1/parse-error", "aos/orch/6.1/invalid-request", "aos/orch/3.12.1/jsonrpc-version", "aos/orch/6.1/method-not-found", "aos/orch/6.1/invalid-params", MessagesValidID}, Exact: true})
	FaultUnknownDecision = faults.Add(fault.Fault{Name: "unknown-decision", Doc: "decides \"approve\" instead of allow (§5.1.1: allow, deny or modify)",
		Fails: []string{"aos/orch/5.1/decision"}, Exact: true})
	FaultErrorString = faults.Add(fault.Fault{Name: "error-string", Doc: "writes error as a string, not an {code, message} object (§3.13)",
		Fails: []string{"aos/orch/6.1/parse-error", "aos/orch/6.1/invalid-request", "aos/orch/3.12.1/jsonrpc-version", "aos/orch/6.1/method-not-found", "aos/orch/6.1/invalid-params"}, Exact: true})
	FaultNoListen = faults.Add(fault.Fault{Name: "no-listen", Doc: "never listens where it is told to (served: exits 0 without listening at AOPKIT_LISTEN; in a run, the agent gets a URL where nothing answers): no request reaches it (§2)",
		Fails: []string{ListensID}, Exact: true})
)

// misanswer turns a correct answer into the fault's (the answer itself when the
// guardian plays no fault).
func (g *Guardian) misanswer(resp *response) any {
	switch g.Fault {
	case FaultStringIDs:
		if resp.ID != nil {
			cp := *resp
			cp.ID = fmt.Sprint(resp.ID)
			return &cp
		}
	case FaultAllowInvalid:
		if resp.Error != nil {
			return &response{JSONRPC: "2.0", ID: resp.ID, Result: map[string]any{"decision": spec.Allow, "message": "Allowed."}}
		}
	case FaultUnknownDecision:
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
	case FaultErrorString:
		if resp.Error != nil {
			return map[string]any{"jsonrpc": "2.0", "id": resp.ID, "error": resp.Error.Message}
		}
	}
	return resp
}
