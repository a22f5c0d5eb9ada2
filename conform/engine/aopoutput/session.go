package aopoutput

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/conform/engine/sim"
	"github.com/aopkit/aopkit/mockagent"
)

// Config describes one agent run.
type Config struct {
	Scratch  string
	Scenario string
	Task     string
	TaskType string // search, analysis, code, test, build, documentation, ...
}

// Session is the parent orchestrator of one agent run.
type Session struct {
	Cfg   Config
	Rec   *aof.Recorder
	Clock clock.Clock
	lines []agentio.Line
	exit  *agentio.Exit
}

// NewSession starts the transcript of one run.
func NewSession(clk clock.Clock, cfg Config, transcript io.Writer) *Session {
	return &Session{Cfg: cfg, Clock: clk, Rec: &aof.Recorder{W: transcript, Protocol: "aop-output", Session: cfg.Scenario}}
}

// Env is the agent's environment under the aop-output binding.
func (s *Session) Env() []string {
	return []string{"AOP_PROTOCOL=aop-output", "AOPKIT_SCRATCH=" + s.Cfg.Scratch, "AOPKIT_SCENARIO=" + s.Cfg.Scenario}
}

// StdinLine is the task line.
func (s *Session) StdinLine() []byte {
	data, _ := json.Marshal(map[string]string{"task": s.Cfg.Task, "task_type": s.Cfg.TaskType})
	return data
}

// Line keeps one stdout line.
func (s *Session) Line(l agentio.Line) {
	if l.Stream != "stdout" {
		return
	}
	if l.At.IsZero() {
		l.At = s.Clock.Now()
	}
	s.lines = append(s.lines, l)
}

// Stdout is everything the agent wrote on stdout.
func (s *Session) Stdout() []byte {
	var b bytes.Buffer
	for _, l := range s.lines {
		b.Write(l.Data)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Exit records the output (the report block as one text record, other lines one
// record each), the details file, and how the agent ended.
func (s *Session) Exit(e agentio.Exit) *Result {
	var block []string
	var blockAt time.Time
	flush := func() {
		if block != nil {
			s.Rec.Data(blockAt, "agent", "stdout", []byte(strings.Join(block, "\n")))
			block = nil
		}
	}
	for _, l := range s.lines {
		name, _, isMarker := marker(strings.TrimSpace(string(l.Data)))
		switch {
		case isMarker && block == nil:
			block = []string{string(l.Data)}
		case block != nil:
			block = append(block, string(l.Data))
		default:
			s.Rec.Data(l.At, "agent", "stdout", l.Data)
		}
		blockAt = l.At
		if isMarker && name == "END" {
			flush()
		}
	}
	flush()
	res := Check(s.Stdout(), s.Cfg.Scratch, s.Cfg.TaskType)
	if res.DetailsPath != "" {
		if data, err := os.ReadFile(res.DetailsPath); err == nil {
			root, _ := filepath.EvalSymlinks(s.Cfg.Scratch)
			rel, _ := filepath.Rel(root, res.DetailsPath)
			s.Rec.Data(s.Clock.Now(), "agent", "file:"+filepath.ToSlash(rel), bytes.TrimSpace(data))
		}
	}
	d := map[string]any{"code": e.Code}
	if e.Signal != "" {
		d["signal"] = e.Signal
	}
	if e.Err != nil {
		d["error"] = e.Err.Error()
	}
	s.exit = &e
	s.Rec.Harness(s.Clock.Now(), "agent-exit", d)
	if e.Code != 0 || e.Signal != "" {
		res.Findings = append(res.Findings, Finding{Rule: "aop-output/agent/exit", Severity: "error", Message: "the agent did not exit 0"})
		res.Status = ""
	}
	end := map[string]any{"status": res.Status}
	if rules := res.Rules(); len(rules) > 0 {
		end["rules"] = rules
	}
	s.Rec.Harness(s.Clock.Now(), "scenario-end", end)
	return res
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

// Drive plays the parent against a running agent.
func (s *Session) Drive(ctx context.Context, conn agentio.Conn, clk clock.Clock, opt Options) *Result {
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
	return s.Exit(conn.Exit())
}

// Simulate runs a mockagent in the calling goroutine on virtual time (see
// aof.Session.Simulate).
func (s *Session) Simulate(ctx context.Context, agent *mockagent.Agent, fault string, fake *clock.Fake, opt Options) *Result {
	opt = opt.withDefaults()
	s.Rec.Harness(fake.Now(), "agent-start", nil)
	line := s.StdinLine()
	s.Rec.Data(fake.Now(), "orchestrator", "stdin", line)
	exit := sim.Agent{Agent: agent, Fault: fault, Fake: fake, Step: time.Second, Env: s.Env(), Dir: s.Cfg.Scratch,
		Stdin: append(line, '\n'), OnLine: s.Line, Tick: sim.Deadline(s.Rec, fake.Now(), opt.Deadline)}.Run(ctx)
	return s.Exit(exit)
}
