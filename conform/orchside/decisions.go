package orchside

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/aopkit/aopkit/conform"
	orchscenarios "github.com/aopkit/aopkit/fixtures/orchestrator-scenarios"
)

// Decisions renders what the orchestrator did with its agent in one scenario as a
// sequence of lines without times or ids: each launch with what it was
// dispatched, every message the orchestrator sent it (a response named by the
// request it answers), the end of its input, the signals, how the agent ended,
// the protocol messages the orchestrator emitted itself (aop2 EVENTs, with the
// §12 codes they report) and how the orchestrator itself ended. Two orchestrators that decided alike
// have the same sequence; the reference engine's is the expected one (item 3 of
// issue 15: the diff shows where an orchestrator diverged).
func Decisions(s *conform.Session) []string {
	sd := sides[protocolOf(s)]
	if sd != nil && sd.decisions != nil {
		return sd.decisions(s)
	}
	var out []string
	orch := s.Last()
	for _, l := range launchesOf(s) {
		head := fmt.Sprintf("launch %d", l.N)
		if d := dispatchSummary(s, &l); d != "" {
			head += ": " + d
		}
		out = append(out, head)
		requests := map[string]string{}
		first := l.firstTask()
		v1 := aop2V1Launch(s, &l)
		for i := range l.Events {
			e := &l.Events[i]
			switch e.Kind {
			case "stdout":
				if strings.HasPrefix(e.Key, "request:") {
					var m map[string]any
					json.Unmarshal([]byte(e.Line), &m)
					if id, _ := m["id"].(string); id != "" {
						requests[id] = e.Key
					}
				}
			case "stdin":
				if (e == first && (e.Key == "TASK" || e.Key == aopOutTaskKey)) || (v1 && e.Key == "") {
					continue // the dispatch (a TASK, an aop-output task line, or the lines of a v1 prompt), on the launch's line
				}
				line := "  sends a non-message line"
				if e.Key != "" {
					line = "  sends " + e.Key
				}
				if strings.HasPrefix(e.Key, "response:") {
					var m map[string]any
					json.Unmarshal([]byte(e.Line), &m)
					c, _ := m["correlationId"].(string)
					if r := requests[c]; r != "" {
						line += " to " + r
					} else {
						line += " to no request"
					}
				}
				out = append(out, line)
			case "stdin-eof":
				if e.By == "" {
					out = append(out, "  closes its stdin")
				}
			case "signal":
				if e.By == "" {
					out = append(out, "  signals "+e.Signal)
				}
			case "exit":
				out = append(out, fmt.Sprintf("  agent exits %d", e.Code))
			}
		}
		if l.Exit() == nil {
			if l.HarnessKilled != "" && orch != nil && orch.Timeout {
				out = append(out, "  agent still running when the orchestrator was stopped")
			} else if l.HarnessKilled != "" {
				out = append(out, "  agent still running when the orchestrator exited")
			} else {
				out = append(out, "  agent killed (SIGKILL)")
			}
		}
	}
	if sd != nil && sd.afterLaunches != nil {
		out = append(out, sd.afterLaunches(s)...)
	}
	switch {
	case orch == nil:
		out = append(out, "orchestrator never started")
	case orch.Timeout:
		out = append(out, "orchestrator stopped at the scenario deadline")
	case !orch.Decided.IsZero():
		out = append(out, stayedUp)
	case orch.Exit.Signal != "":
		out = append(out, "orchestrator killed by "+orch.Exit.Signal)
	default:
		out = append(out, fmt.Sprintf("orchestrator exits %d", orch.Exit.Code))
	}
	return out
}

func protocolOf(s *conform.Session) string {
	if s.Scenario == nil {
		return ""
	}
	return s.Scenario.Protocol
}

// firstTask is the launch's first stdin event (the dispatch, for aop2).
func (l *Launch) firstTask() *Event {
	for i := range l.Events {
		if l.Events[i].Kind == "stdin" {
			return &l.Events[i]
		}
	}
	return nil
}

// dispatchSummary is what a launch was dispatched, "" when the protocol has no
// summary.
func dispatchSummary(s *conform.Session, l *Launch) string {
	if sd := sides[protocolOf(s)]; sd != nil && sd.dispatchSummary != nil {
		return sd.dispatchSummary(s, l)
	}
	return ""
}

// ReferenceDecisions is the reference engine's decision sequence for a shipped
// scenario (fixtures/orchestrator-scenarios/<protocol>/<name>.decisions, written by
// `go test ./cmd/aopconform -run TestOrchestratorSide -update`), or nil.
func ReferenceDecisions(sc *conform.Scenario) []string {
	if sc == nil || sc.Source == "" || !strings.HasSuffix(sc.Source, ".json") {
		return nil
	}
	b, err := fs.ReadFile(orchscenarios.FS, strings.TrimSuffix(path.Clean(sc.Source), ".json")+".decisions")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// stayedUp ends the decision sequence of an orchestrator the harness stopped
// once the scenario was decided (a daemon).
const stayedUp = "orchestrator stays up once the task is decided (stopped by the harness)"

// refCheck is the comparison with the reference engine, one per protocol.
func refCheck(protocol string) *conform.Check {
	return &conform.Check{
		ID: protocol + "/orch/ref/engine-decisions", Family: "reference", Tier: conform.Full, Level: conform.MAY,
		Spec:        protocol + " (the reference engine, docs/orchestrator-side.md)",
		Requirement: "The orchestrator decides as the reference engine does in the same scenario: the same dispatches, messages, signals and ends, in the same order (times and ids aside). A divergence is reported with the diff, never scored: the engine is the yardstick, not the spec.",
		Bad:         "the engine terminates the agent at the effective timeout and re-dispatches it; the orchestrator under test lets it run and exits",
		Good:        "launch 1: TASK for CODEX / gpt-5.3-codex, attempt 1 / signals SIGTERM / agent exits 0 / orchestrator exits 0 — as the engine",
		Run: func(s *conform.Session) conform.Outcome {
			got := Decisions(s)
			want := ReferenceDecisions(s.Scenario)
			if n := len(want); n > 0 && len(got) > 0 && got[len(got)-1] == stayedUp && want[n-1] == "orchestrator exits 0" {
				// A daemon that stays up once the task is decided ends as the
				// engine does, which exits.
				want = append(append([]string(nil), want[:n-1]...), stayedUp)
			}
			if want == nil {
				// The decisions are still reported: they are what -update stores.
				o := conform.NotTestedf("no reference decisions for this scenario")
				o.Actual = strings.Join(got, "\n")
				return o
			}
			if strings.Join(got, "\n") == strings.Join(want, "\n") {
				o := conform.Passf("the same %d decisions as the reference engine", len(got))
				o.Actual = strings.Join(got, "\n")
				return o
			}
			o := conform.Outcome{Verdict: conform.Warn, Message: "the orchestrator decided differently from the reference engine",
				Expected: strings.Join(want, "\n"), Actual: strings.Join(got, "\n")}
			return o
		},
	}
}
