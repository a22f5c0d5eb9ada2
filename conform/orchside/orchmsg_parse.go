package orchside

import (
	"github.com/aopkit/aopkit/conform"
)

// The orchmsg check of how the orchestrator frames its agent's stdout: line by
// line. The scenario's cue (setup.mockagent.one_write) makes the agent write its
// "task assigned" log line and its first request:get-task in one write, two
// lines in one pipe chunk, as lines may always arrive.

func init() {
	conform.Register(orchmsgLinesCheck)
}

var orchmsgLinesCheck = &conform.Check{
	ID: "orchmsg/orch/parse/lines", Family: "parsing", Tier: conform.Resilient, Level: conform.SHOULD,
	Spec:        "orchmsg Parsing Strategy (Orchestrator receives agent output: try to parse as JSON, route by type), Overview (JSON messages over stdin/stdout pipes); bindings §orchmsg (one JSON object per line)",
	Requirement: "If valid JSON with `type` field → route to MessageHandler. (Each line of the agent's stdout is one message, however the pipe delivers it: a request that arrives in the same chunk as another line is routed and answered like one that arrives alone. The spec's own orchestrator sample parses each chunk whole, hence a SHOULD.)",
	Requires:    []string{"orchmsg/§parsing-strategy/route-json"},
	Bad:         `stdout.on('data', d => handle(JSON.parse(d.toString()))): two lines in one chunk fail to parse together and the request in them is lost (forge)`,
	Good:        `readline.createInterface({input: child.stdout}).on('line', l => handle(JSON.parse(l))): each line is parsed and routed alone`,
	Run:         orchmsgLines,
}

// orchmsgLines judges the agent's first request:get-task of the first launch,
// which the scenario's cue wrote in one write with the line before it.
func orchmsgLines(s *conform.Session) conform.Outcome {
	ls := launchesOf(s)
	if len(ls) == 0 {
		return orchmsgNoLaunch()
	}
	for _, x := range orchmsgExchanges(&ls[0]) {
		if x.typ != "request:get-task" {
			continue
		}
		asked := "request:get-task " + orchmsgPayloadJSON(x.msg) + ", written in one write with the agent's log line before it"
		switch {
		case cutShort(s, x):
			return conform.NotTestedf("%s was still pending when the harness stopped the orchestrator", asked)
		case x.ans == nil:
			return conform.Mismatch(asked+", got no answer: the orchestrator reads its agent's stdout per chunk, not per line, and lost it (orchmsg Parsing Strategy; bindings §orchmsg)",
				"a response to the request that shared a chunk with another line", "no response").At(x.req.Seq)
		}
		return conform.Passf("%s, was answered %s", asked, x.ans.Key).At(x.seqs()...)
	}
	return conform.NotTestedf("the agent sent no request:get-task (the scenario's cue failed)")
}
