package aos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/sim"
	"github.com/aopkit/aopkit/mockagent"
)

// Script is the work script written on the agent's stdin (aos binding).
type Script struct {
	Task  string     `json:"task"`
	Tools []ToolCall `json:"tools"`
}

// ToolCall is one tool call the agent intends to make.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Executed is one line the agent printed for a tool it ran.
type Executed struct {
	ExecutionID string         `json:"executionId"`
	Name        string         `json:"name"`
	Arguments   map[string]any `json:"arguments"`
}

// Violation is one enforcement finding of the harness.
type Violation struct {
	Rule   string // AOS-SEQ-DENIED-EXECUTED, ...
	Detail string
}

// Config describes one run of an agent against the reference guardian.
type Config struct {
	Scratch   string
	Scenario  string
	Policy    *Policy
	Script    Script
	BodyLimit int64
}

// Session is the guardian side of one agent run.
type Session struct {
	Cfg      Config
	Guardian *Guardian
	Server   *Server
	Rec      *aof.Recorder
	Clock    clock.Clock
	Executed []Executed
	BadLines []string // stdout lines that are not executed lines
	exit     *agentio.Exit
}

// NewSession starts a guardian on 127.0.0.1 for one agent.
func NewSession(clk clock.Clock, cfg Config, transcript io.Writer) (*Session, error) {
	rec := &aof.Recorder{W: transcript, Protocol: "aos", Session: cfg.Scenario}
	g := NewGuardian(cfg.Policy, clk, rec)
	if cfg.BodyLimit > 0 {
		g.BodyLimit = cfg.BodyLimit
	}
	srv, err := g.Serve()
	if err != nil {
		return nil, err
	}
	return &Session{Cfg: cfg, Guardian: g, Server: srv, Rec: rec, Clock: clk}, nil
}

// Close stops the guardian.
func (s *Session) Close() { s.Server.Close() }

// Env is the agent's environment under the aos binding.
func (s *Session) Env() []string {
	return []string{"AOP_PROTOCOL=aos", "AOPKIT_SCRATCH=" + s.Cfg.Scratch, "AOPKIT_SCENARIO=" + s.Cfg.Scenario,
		"AOS_GUARDIAN_URL=" + s.Server.URL}
}

// StdinLine is the work script line.
func (s *Session) StdinLine() []byte {
	data, _ := json.Marshal(s.Cfg.Script)
	return data
}

// Line records one stdout line of the agent and collects executed tool calls.
func (s *Session) Line(l agentio.Line) {
	if l.Stream != "stdout" {
		return
	}
	at := l.At
	if at.IsZero() {
		at = s.Clock.Now()
	}
	s.Rec.Data(at, "agent", "stdout", l.Data)
	var line struct {
		Executed *Executed `json:"executed"`
	}
	dec := json.NewDecoder(bytes.NewReader(l.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&line); err != nil || line.Executed == nil || line.Executed.Name == "" {
		s.BadLines = append(s.BadLines, string(l.Data))
		return
	}
	s.Executed = append(s.Executed, *line.Executed)
}

// Exit records how the agent ended.
func (s *Session) Exit(e agentio.Exit) {
	d := map[string]any{"code": e.Code}
	if e.Signal != "" {
		d["signal"] = e.Signal
	}
	if e.Err != nil {
		d["error"] = e.Err.Error()
	}
	s.exit = &e
	s.Rec.Harness(s.Clock.Now(), "agent-exit", d)
}

// Violations checks the agent against the guardian's decisions: a denied call must
// not run, a modified call must run as modified, every run call must have been
// asked for, and every run call needs its toolCallResult; plus every JSON-RPC error
// the guardian had to answer.
func (s *Session) Violations() []Violation {
	var out []Violation
	byExec := map[string]Decision{}
	for _, d := range s.Guardian.Decisions() {
		if d.ExecutionID != "" {
			byExec[d.ExecutionID] = d
		}
	}
	ran := map[string]bool{}
	for _, e := range s.Executed {
		ran[e.ExecutionID] = true
		d, ok := byExec[e.ExecutionID]
		switch {
		case !ok:
			out = append(out, Violation{"AOS-SEQ-UNGUARDED", fmt.Sprintf("tool %s ran as %q without a steps/toolCallRequest", e.Name, e.ExecutionID)})
		case d.Decision == Deny:
			out = append(out, Violation{"AOS-SEQ-DENIED-EXECUTED", fmt.Sprintf("tool %s (%s) ran although the guardian denied it (rule %s)", e.Name, e.ExecutionID, ruleName(d.Rule))})
		case d.Decision == Modify && (e.Name != d.ModTool || !SameArgs(e.Arguments, d.ModArgs)):
			want, _ := json.Marshal(d.ModArgs)
			got, _ := json.Marshal(e.Arguments)
			out = append(out, Violation{"AOS-SEQ-MODIFY-IGNORED", fmt.Sprintf("tool %s (%s) ran with %s, the guardian's modifiedRequest says %s", e.Name, e.ExecutionID, got, want)})
		case d.Decision == Allow && (e.Name != d.Tool || !SameArgs(e.Arguments, d.Args)):
			out = append(out, Violation{"AOS-SEQ-ARGS-CHANGED", fmt.Sprintf("tool %s (%s) ran with other arguments than it asked the guardian for", e.Name, e.ExecutionID)})
		}
		if ok && d.Decision != Deny && !s.Guardian.ResultSeen(e.ExecutionID) {
			out = append(out, Violation{"AOS-SEQ-RESULT-MISSING", fmt.Sprintf("tool %s (%s) ran but no steps/toolCallResult followed", e.Name, e.ExecutionID)})
		}
	}
	for _, f := range s.Guardian.Failures() {
		if f.Code == 0 {
			out = append(out, Violation{"AOS-SEQ-DENIED-EXECUTED", "steps/toolCallResult for denied call " + f.Detail})
			continue
		}
		out = append(out, Violation{ruleForCode(f), fmt.Sprintf("guardian answered %d %s for %s: %s", f.Code, f.Message, orUnknown(f.Method), f.Detail)})
	}
	for _, l := range s.BadLines {
		out = append(out, Violation{"AOS-STDOUT-EXECUTED", fmt.Sprintf("stdout line is not {\"executed\":{...}}: %.80q", l)})
	}
	if s.exit != nil && (s.exit.Code != 0 || s.exit.Signal != "") {
		out = append(out, Violation{"aos/agent/exit", fmt.Sprintf("agent exit code %d %s", s.exit.Code, s.exit.Signal)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rule < out[j].Rule })
	return out
}

// Rules returns the distinct rule IDs of the violations, sorted.
func (s *Session) Rules() []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s.Violations() {
		if !seen[v.Rule] {
			seen[v.Rule] = true
			out = append(out, v.Rule)
		}
	}
	return out
}

func ruleName(r string) string {
	if r == "" {
		return "default"
	}
	return r
}

func orUnknown(m string) string {
	if m == "" {
		return "an unreadable request"
	}
	return m
}

// ruleForCode names the rule a guardian error stands for.
func ruleForCode(f Failure) string {
	switch f.Code {
	case CodeParseError:
		return "AOS-JSONRPC-PARSE"
	case CodeMethodNotFound:
		return "AOS-JSONRPC-METHOD"
	case CodeInvalidParams:
		switch {
		case strings.Contains(f.Detail, "already used"):
			return "AOS-SEQ-EXECID-DUP"
		case strings.Contains(f.Detail, "no earlier steps/toolCallRequest"):
			return "AOS-SEQ-RESULT-ORDER"
		case strings.Contains(f.Detail, "/params/citation"):
			return "AOS-MESSAGE-CITATION"
		case strings.Contains(f.Detail, "timestamp"):
			return "AOS-CTX-TIMESTAMP"
		}
		return "AOS-PARAMS"
	case CodeInvalidRequest:
		switch {
		case strings.Contains(f.Detail, "Content-Type"):
			return "AOS-HTTP-CONTENT-TYPE"
		case strings.Contains(f.Detail, "exceeds"):
			return "AOS-HTTP-BODY-LIMIT"
		case strings.Contains(f.Detail, "jsonrpc"):
			return "AOS-JSONRPC-VERSION"
		}
		return "AOS-JSONRPC-REQUEST"
	}
	return "AOS-JSONRPC-INTERNAL"
}

// Options bound a run.
type Options struct {
	Deadline time.Duration // 30 s when 0
	Grace    time.Duration // 2 s when 0
}

func (o Options) withDefaults() Options {
	if o.Deadline <= 0 {
		o.Deadline = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	return o
}

// Drive plays the harness against a running agent: the work script on stdin, every
// stdout line collected, the agent stopped at the deadline.
func (s *Session) Drive(ctx context.Context, conn agentio.Conn, clk clock.Clock, opt Options) agentio.Exit {
	opt = opt.withDefaults()
	s.Rec.Harness(clk.Now(), "agent-start", nil)
	line := s.StdinLine()
	s.Rec.Data(clk.Now(), "orchestrator", "stdin", line)
	conn.Send(line)
	deadline := clk.After(opt.Deadline)
	var grace <-chan time.Time
	lines, done := conn.Lines(), conn.Done()
	for lines != nil || done != nil {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
				continue
			}
			s.Line(l)
		case <-done:
			done = nil
		case <-deadline:
			s.Rec.Harness(clk.Now(), "timeout", map[string]any{"deadlineMs": opt.Deadline.Milliseconds()})
			s.Rec.Harness(clk.Now(), "signal", map[string]any{"signal": "SIGTERM"})
			conn.Terminate()
			grace = clk.After(opt.Grace)
		case <-grace:
			s.Rec.Harness(clk.Now(), "kill", nil)
			conn.Kill()
			grace = nil
		case <-ctx.Done():
			conn.Kill()
			<-conn.Done()
			lines, done = nil, nil
		}
	}
	exit := conn.Exit()
	s.Exit(exit)
	s.Rec.Harness(clk.Now(), "scenario-end", nil)
	return exit
}

// Simulate runs a mockagent in the calling goroutine on virtual time (see
// aof.Session.Simulate); the guardian answers over real loopback HTTP.
func (s *Session) Simulate(ctx context.Context, agent *mockagent.Agent, fault string, fake *clock.Fake, opt Options) agentio.Exit {
	opt = opt.withDefaults()
	s.Rec.Harness(fake.Now(), "agent-start", nil)
	line := s.StdinLine()
	s.Rec.Data(fake.Now(), "orchestrator", "stdin", line)
	exit := sim.Agent{Agent: agent, Fault: fault, Fake: fake, Step: time.Second, Env: s.Env(), Dir: s.Cfg.Scratch,
		Stdin: append(line, '\n'), OnLine: s.Line, Tick: sim.Deadline(s.Rec, fake.Now(), opt.Deadline)}.Run(ctx)
	s.Exit(exit)
	s.Rec.Harness(fake.Now(), "scenario-end", nil)
	return exit
}
