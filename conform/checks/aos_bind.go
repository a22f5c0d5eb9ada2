package checks

import (
	"fmt"
	"reflect"

	"github.com/aopkit/aopkit/conform"
)

var aosBindExitZero = exitZeroFor("aos", "The agent prints one JSON line per executed tool on stdout and exits 0.",
	"aos/4.6/result-after-execute", "aos/bind/all-tools-requested")

var aosBindStdoutProtocolOnly = stdoutProtocolOnly(&conform.Check{
	ID:          "aos/bind/stdout-protocol-only",
	Tier:        conform.Full,
	Level:       conform.MUST,
	Spec:        "bindings §aos",
	Requirement: "The agent prints one JSON line per executed tool on stdout {\"executed\":{...}}; anything else belongs on stderr.",
	After:       []string{"aos/bind/all-tools-requested"},
}, func(r *conform.Record) bool { return r.Key == "executed" }, "")

var aosBindAllToolsRequested = &conform.Check{
	ID:          "aos/bind/all-tools-requested",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "bindings §aos",
	Requirement: "Before each tool call of the work script the agent sends steps/toolCallRequest, in order.",
	After:       []string{"aos/2.2/content-type", "aos/3.12.1/jsonrpc-request", "aos/3.8/step-context", "aos/4.6/request-before-execute"},
	Bad:         `the agent skips the second tool of the script silently`,
	Good:        `a steps/toolCallRequest for every tool of the script, in order`,
	Run: byExecutionID(func(s *conform.Session) conform.Outcome {
		want := aosScriptTools(s)
		ds := aosDecisions(s)
		var got []string
		for _, d := range ds {
			got = append(got, d.Tool)
		}
		if len(want) == 0 {
			return conform.NotTestedf("the work script has no tools")
		}
		if n := aosUndecided(s); n > 0 && !reflect.DeepEqual(want, got) {
			// Requests the guardian rejected as invalid JSON-RPC have no decision
			// and no tool name: the invalid request is the root cause.
			return conform.NotJudgedf("aos/3.12.1/jsonrpc-request", "the guardian answered %d steps/toolCallRequest requests with JSON-RPC errors, not decisions", n)
		}
		if !reflect.DeepEqual(want, got) {
			if len(got) < len(want) && reflect.DeepEqual(want[:len(got)], got) {
				if o := crashed(s, fmt.Sprintf("after %d of the work script's %d tool call requests", len(got), len(want))); o != nil {
					return *o
				}
			}
			return conform.Mismatch("the tool call requests do not follow the work script", want, got)
		}
		return conform.Passf("%d tool calls requested in order", len(got))
	}),
}
