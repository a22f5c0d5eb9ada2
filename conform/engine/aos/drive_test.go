package aos_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/mockagent"
	mockaos "github.com/aopkit/aopkit/mockagent/aos"
)

var update = flag.Bool("update", false, "rewrite the reference transcripts in fixtures/reference/aos")

const fixtures = "../../../fixtures/reference/aos"

func scenario(t *testing.T, id string) *conform.Scenario {
	t.Helper()
	return enginetest.Scenario(t, "aos", id)
}

// play runs Drive through the harness against the in-process mockagent inside a
// synctest bubble (enginetest.PlayVirtual: virtual time from 2000-01-01, the
// guardian served in memory) and returns the session and the transcript.
func play(t *testing.T, sc *conform.Scenario, fault string) (*conform.Session, []byte) {
	t.Helper()
	p := enginetest.PlayVirtual(t, sc, fault, "", aos.Drive)
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	return p.Session, p.Transcript
}

// playAgent is play with an agent of the test's own.
func playAgent(t *testing.T, sc *conform.Scenario, ag *mockagent.Agent) *conform.Session {
	t.Helper()
	p := enginetest.PlayAgent(t, sc, ag, "", "", aos.Drive)
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	return p.Session
}

// The engine's faults change its answers in the way named; an unknown one is the
// harness's error.
func TestDriveEngineFaults(t *testing.T) {
	sc := scenario(t, "aos-happy-path")
	if p := enginetest.PlayVirtual(t, sc, "", "no-such-fault", aos.Drive); p.Err == nil {
		t.Error("an unknown engine fault was played")
	}
	p := enginetest.PlayVirtual(t, sc, "", "string-ids", aos.Drive)
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	n := 0
	for _, r := range p.Session.Records {
		if r.From == "orchestrator" && r.Stream == "http" {
			n++
			if _, ok := r.Obj()["id"].(string); !ok {
				t.Errorf("string-ids: answer id %#v", r.Obj()["id"])
			}
		}
	}
	if n == 0 {
		t.Error("no answers")
	}
	p = enginetest.PlayVirtual(t, sc, "", "unknown-decision", aos.Drive)
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	if got := answers(p.Session); !slices.Contains(got, "steps/toolCallRequest approve") {
		t.Errorf("unknown-decision: %q", got)
	}
}

// answers is the engine's side of a run, in order: what the guardian answered to
// each request ("ping connected", "steps/toolCallRequest allow", "steps/message
// error -32602", "(unreadable) error -32700", "steps/toolCallRequest withheld")
// and the harness's stop signals.
func answers(s *conform.Session) []string {
	var out []string
	var pending []string // requests not answered yet, in order
	for _, r := range s.Records {
		switch {
		case r.From == "agent" && r.Stream == "http":
			k := r.Key
			if k == "" {
				k = "(unreadable)"
			}
			pending = append(pending, k)
		case r.From == "orchestrator" && r.Stream == "http" && len(pending) > 0:
			out = append(out, pending[0]+" "+answer(r))
			pending = pending[1:]
		case r.Event == "withheld" && len(pending) > 0:
			out = append(out, pending[0]+" withheld")
			pending = pending[1:]
		case r.Event == "signal", r.Event == "kill":
			out = append(out, string(r.Event)+" "+conform.KeySignal.Get(r.Detail))
		}
	}
	return out
}

func answer(r conform.Record) string {
	m := r.Obj()
	if e, ok := m["error"].(map[string]any); ok {
		return fmt.Sprintf("error %v", e["code"])
	}
	res, _ := m["result"].(map[string]any)
	if d, ok := res["decision"].(string); ok {
		if rc, ok := res["reasonCode"].([]any); ok {
			return fmt.Sprintf("%s %v", d, rc)
		}
		return d
	}
	return fmt.Sprint(res["status"])
}

func decisions(s *conform.Session) []string {
	ds := conform.FactAOSDecisions.Get(s)
	var out []string
	for _, d := range ds {
		x := d.ExecutionID + " " + d.Tool + " " + d.Decision
		if len(d.Arguments) > 0 {
			x += " " + string(d.Arguments)
		}
		out = append(out, x)
	}
	return out
}

const (
	ping    = "ping connected"
	message = "steps/message allow"
	request = "steps/toolCallRequest allow"
	result  = "steps/toolCallResult allow"
)

// The correct agent against every shipped scenario: the guardian's answers and
// decisions, and the reference transcripts (correct-<scenario>.jsonl).
func TestDriveCorrect(t *testing.T) {
	for _, c := range []struct {
		id        string
		answers   []string
		decisions []string
	}{
		{"aos-happy-path", []string{ping, message, request, result, request, result, message},
			[]string{"exec-1 read_file allow", "exec-2 search allow"}},
		{"aos-deny", []string{ping, message, request, result, "steps/toolCallRequest deny", request, result, message},
			[]string{"exec-1 list_files allow", "exec-2 delete_file deny", "exec-3 read_file allow"}},
		{"aos-modify", []string{ping, message, "steps/toolCallRequest modify", result, request, result, message},
			[]string{`exec-1 run_shell modify {"command":"ls build"}`, "exec-2 read_file allow"}},
		{"aos-guardian-error", []string{ping, message, "steps/toolCallRequest error -32603", request, result, message},
			[]string{"exec-1 deploy error", "exec-2 read_file allow"}},
		// The guardian never answers: 3 s after the request the harness stops the
		// agent (past any guardian timeout the agent may have up to then).
		{"aos-stalled-guardian", []string{ping, message, "steps/toolCallRequest withheld", "signal SIGTERM"},
			[]string{"exec-1 slow_tool stall"}},
	} {
		t.Run(c.id, func(t *testing.T) {
			sess, tr := play(t, scenario(t, c.id), "")
			if got := answers(sess); !slices.Equal(got, c.answers) {
				t.Errorf("answers\n got %q\nwant %q", got, c.answers)
			}
			if got := decisions(sess); !slices.Equal(got, c.decisions) {
				t.Errorf("decisions\n got %q\nwant %q", got, c.decisions)
			}
			if a := sess.Attempt(1); a == nil || a.Exit.Code != 0 && a.Exit.Signal == "" {
				t.Errorf("attempt %+v", a)
			}
			golden(t, "correct-"+strings.TrimPrefix(c.id, "aos-")+".jsonl", tr)
		})
	}
}

// Each mockagent fault against a scenario that provokes it: the guardian's
// answers name the fault (the error codes of §6.1, the deny of a denied call's
// result, the stop of an agent that never finishes).
func TestDriveFaults(t *testing.T) {
	cases := []struct {
		fault, scenario string
		answers         []string
		golden          bool // also a reference transcript <fault>-<scenario>.jsonl
	}{
		{"hang", "aos-happy-path", []string{ping, "signal SIGTERM"}, false},
		{"exceed-timeout", "aos-happy-path", []string{ping, message, "signal SIGTERM"}, false},
		{"crash-mid-task", "aos-happy-path", []string{ping, message, request}, false},
		{"malformed-json", "aos-happy-path", []string{ping, "(unreadable) error -32700", message, request, result, request, result, message}, false},
		{"ignore-deny", "aos-deny", []string{ping, message, request, result, "steps/toolCallRequest deny", "steps/toolCallResult deny [DENIED_CALL_EXECUTED]", request, result, message}, true},
		{"ignore-modify", "aos-modify", []string{ping, message, "steps/toolCallRequest modify", result, request, result, message}, false},
		{"bad-timestamps", "aos-happy-path", []string{ping, "steps/message error -32602", "steps/toolCallRequest error -32602", "steps/toolCallRequest error -32602", "steps/message error -32602"}, false},
		{"stdout-garbage", "aos-happy-path", []string{ping, message, request, result, request, result, message}, false},
		{"wrong-jsonrpc-version", "aos-happy-path", []string{"ping error -32600", "steps/message error -32600", "steps/toolCallRequest error -32600", "steps/toolCallRequest error -32600", "steps/message error -32600"}, false},
		{"missing-citation", "aos-happy-path", []string{ping, "steps/message error -32602", request, result, request, result, message}, false},
		{"result-before-request", "aos-happy-path", []string{ping, message, "steps/toolCallResult error -32602", request, result, request, result, message}, false},
		{"duplicate-execution-id", "aos-happy-path", []string{ping, message, request, result, "steps/toolCallRequest error -32602", message}, true},
		{"oversize-payload", "aos-happy-path", []string{ping, "(unreadable) error -32600", message, request, result, request, result, message}, false},
		{"wrong-content-type", "aos-happy-path", []string{"ping error -32600", "steps/message error -32600", "steps/toolCallRequest error -32600", "steps/toolCallRequest error -32600", "steps/message error -32600"}, false},
		{"unknown-method", "aos-happy-path", []string{ping, message, "steps/toolCall error -32601", request, result, message}, false},
		{"unguarded-execution", "aos-happy-path", []string{ping, message, request, result, "steps/toolCallResult error -32602", message}, true},
		// The result of the call the guardian answered with an error is refused,
		// as an unrequested one is (§5.2: fail closed).
		{"fail-open", "aos-guardian-error", []string{ping, message, "steps/toolCallRequest error -32603", "steps/toolCallResult error -32602", request, result, message}, true},
		// The FilePart's bytes are not base64 (AOS-PART-002): invalid params.
		{"raw-file-bytes", "aos-happy-path", []string{ping, message, request, result, request, result, "steps/message error -32602"}, true},
		// The guardian withholds its answer; the agent waits on through SIGTERM
		// until the SIGKILL at the end of the grace period.
		{"ignore-shutdown", "aos-stalled-guardian", []string{ping, message, "steps/toolCallRequest withheld", "signal SIGTERM", "kill SIGKILL"}, true},
		{"missing-result", "aos-happy-path", []string{ping, message, request, result, request, message}, false},
	}
	// ignoresTerm are the faults whose agent traps SIGTERM: played with
	// agentio.InProcess.IgnoreTerm (enginetest.PlayIgnoringTerm), as the process ignores
	// the signal and only SIGKILL stops it.
	ignoresTerm := map[string]bool{"ignore-shutdown": true}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.fault] = true
		t.Run(c.fault, func(t *testing.T) {
			var sess *conform.Session
			var tr []byte
			if ignoresTerm[c.fault] {
				p := enginetest.PlayIgnoringTerm(t, scenario(t, c.scenario), c.fault, aos.Drive)
				if p.Err != nil {
					t.Fatal(p.Err)
				}
				sess, tr = p.Session, p.Transcript
			} else {
				sess, tr = play(t, scenario(t, c.scenario), c.fault)
			}
			if got := answers(sess); !slices.Equal(got, c.answers) {
				t.Errorf("answers\n got %q\nwant %q", got, c.answers)
			}
			if c.golden {
				golden(t, c.fault+"-"+strings.TrimPrefix(c.scenario, "aos-")+".jsonl", tr)
			}
		})
	}
	for _, f := range mockaos.Agent.Faults.List() {
		if !covered[f.Name] {
			t.Errorf("fault %s has no case", f.Name)
		}
	}
}

// golden compares a transcript with its reference file, byte for byte (go test
// -update rewrites it): on virtual time, with the harness settled around every
// HTTP exchange (agentio.InProcess.Settle), a run is reproducible.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	enginetest.Golden(t, filepath.Join(fixtures, name), got, *update)
}

// reference transcripts are records of transcript/1 (the harness's one writer).
func TestReferenceTranscriptsAreTranscripts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no reference transcripts")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r conform.Record
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.Aopkit != conform.TranscriptVersion {
				t.Errorf("%s:%d is not a transcript/1 record: %.100s", filepath.Base(f), i+1, line)
				break
			}
		}
	}
}

// guardianTimeoutAgent is a third-party-style agent with a guardian timeout of its
// own: it pings, asks for its first tool, and when no answer comes within timeout
// it runs the tool anyway (failOpen) or gives up and exits 0 (fail closed).
func guardianTimeoutAgent(timeout time.Duration, failOpen bool) *mockagent.Agent {
	return &mockagent.Agent{Protocol: "aos", Run: func(ctx context.Context, env mockagent.Env, _ string) int {
		line, _ := bufio.NewReader(env.Stdin).ReadBytes('\n')
		var script struct {
			Tools []struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"tools"`
		}
		if json.Unmarshal(line, &script) != nil || len(script.Tools) == 0 {
			return 2
		}
		client := &http.Client{Transport: env.HTTP}
		post := func(ctx context.Context, body string) error {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, env.Getenv("AOS_GUARDIAN_URL"), strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			return err
		}
		if post(ctx, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"timestamp":"2000-01-01T00:00:00Z"}}`) != nil {
			return 1
		}
		tool := script.Tools[0].Name
		tctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		err := post(tctx, `{"jsonrpc":"2.0","id":2,"method":"steps/toolCallRequest","params":{"toolCallRequest":{"executionId":"e1","toolId":"`+tool+`","inputs":[]}}}`)
		if err == nil || ctx.Err() != nil {
			return 0
		}
		if failOpen {
			fmt.Fprintf(env.Stdout, `{"executed":{"executionId":"e1","name":%q,"arguments":{}}}`+"\n", tool)
		}
		return 0
	}}
}

// Issue 9 item 6: in stalled-guardian the harness waits past the agent's own
// guardian timeout before it stops the agent, so an agent that fails open after
// its timeout is caught, and one that fails closed and exits cleanly passes.
func TestStalledGuardianTimeouts(t *testing.T) {
	sc := scenario(t, "aos-stalled-guardian")
	verdicts := func(s *conform.Session) map[string]conform.Verdict {
		out := map[string]conform.Verdict{}
		for _, id := range []string{"aos/5.2/fail-closed", "aos/bind/stop-on-sigterm"} {
			out[id] = conform.LookupCheck(id).Run(s).Verdict
		}
		return out
	}
	for _, timeout := range []time.Duration{300 * time.Millisecond, time.Second, 2500 * time.Millisecond} {
		t.Run("fail-open-after-"+timeout.String(), func(t *testing.T) {
			sess := playAgent(t, sc, guardianTimeoutAgent(timeout, true))
			if v := verdicts(sess)["aos/5.2/fail-closed"]; v != conform.Fail {
				t.Errorf("an agent failing open after %s: fail-closed %s, want FAIL", timeout, v)
			}
		})
		t.Run("fail-closed-after-"+timeout.String(), func(t *testing.T) {
			sess := playAgent(t, sc, guardianTimeoutAgent(timeout, false))
			v := verdicts(sess)
			if v["aos/5.2/fail-closed"] != conform.Pass || v["aos/bind/stop-on-sigterm"] == conform.Fail {
				t.Errorf("an agent failing closed after %s and exiting: %v", timeout, v)
			}
		})
	}
}
