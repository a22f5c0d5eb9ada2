// Package orchside certifies the orchestrator side of a protocol: the
// orchestrator under test is started (through the harness, in a scratch
// directory) with a task and the command of its agent, which is mockagent under
// the harness's control; mockagent misbehaves on cue (the task's x_mockagent
// script) and writes what it saw (`mockagent --observe DIR`), and the checks of
// this package judge what the orchestrator did about it (docs/orchestrator-side.md).
//
// The run loop, judging, scoring, --repeat and the reports are conform/runner's:
// this package gives it a driver (Driver) and registers the checks
// ("<protocol>/orch/<section>/<name>"). Its scenarios live in
// fixtures/orchestrator-scenarios.
package orchside

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	orchscenarios "github.com/aopkit/aopkit/fixtures/orchestrator-scenarios"
	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/mockagent"
)

// The binding of an orchestrator under test (docs/bindings.md "Orchestrators"):
// environment variables the harness sets for it.
const (
	// EnvAgent is the absolute path of an executable (no arguments) that starts
	// the agent: the orchestrator runs it once per dispatch, exactly as it would
	// run its own executor command.
	EnvAgent = "AOPKIT_AGENT"
	// EnvTask is the absolute path of the task file to orchestrate (aop2: one
	// TASK envelope, JSON).
	EnvTask = "AOPKIT_TASK"
	// EnvMockFault, in an orchestrator-side scenario's env, is the fault the
	// agent plays on every launch (`mockagent --fault`), for protocols whose task
	// carries no per-launch cue.
	EnvMockFault = "AOPKIT_MOCKAGENT_FAULT"
	// EnvMockProgram is the mockagent program $AOPKIT_AGENT runs. The sandbox
	// lets the orchestrator read and run what the harness's AOPKIT_* variables
	// name, so the agent starts wherever mockagent is installed, not only when
	// it sits on the orchestrator's PATH or in its project.
	EnvMockProgram = "AOPKIT_MOCKAGENT_PROGRAM"
)

// Judged is the "from" of the records under test on this side.
const Judged = conform.ActorOrchestrator

// FactLaunches is the session fact holding the agent launches.
var FactLaunches = conform.NewFact[[]Launch]("orch.launches")

// FactFiles holds the scenario's setup files after the orchestrator ended
// (by path: nil when absent), FactFilesBefore as written, FactTask the task
// the orchestrator was given.
var (
	FactFiles       = conform.NewFact[map[string]*string]("orch.files")
	FactFilesBefore = conform.NewFact[map[string]string]("orch.files.before")
	FactTask        = conform.NewFact[string]("orch.task")
)

// setup is an orchestrator-side scenario's "setup": files written into the
// scratch directory before the orchestrator starts (paths relative to it), read
// back when it has ended.
type setup struct {
	Files map[string]string `json:"files"`
	// Mockagent is the agent's behaviour script, given to it out of band: the
	// driver writes it to .aopkit/mockagent-script.json and the agent command
	// sets $AOPKIT_MOCKAGENT_SCRIPT (mockagent.Script) itself, so that it
	// reaches the agent whatever the orchestrator passes on, and never travels
	// in a protocol message.
	Mockagent json.RawMessage `json:"mockagent"`
}

// Sides of aopconform run --side.
const (
	SideAgent        = "agent"
	SideOrchestrator = "orchestrator"
)

// Builtin parses the shipped orchestrator-side scenarios.
func Builtin() ([]*conform.Scenario, error) {
	return conform.LoadScenarios(orchscenarios.FS, ".")
}

// side is what one protocol adds to the generic orchestrator-side driver and
// decision sequence. Each protocol's file registers its own (sides[protocol]); a
// protocol missing here has no orchestrator side yet. Only key is required.
type side struct {
	// key names protocol messages (step triggers, "spoke", checks).
	key func(r *conform.Record) string
	// drive replaces the generic driver for a side that launches no mockagent
	// (aos: a guardian the harness talks to over HTTP); decisions then renders
	// the whole decision sequence (which probe got which answer).
	drive     func(h *harness.H) error
	decisions func(s *conform.Session) []string
	// controlLine marks the orchestrator's stdout lines that are the binding's,
	// not protocol messages (recorded with stream "control"); mergeLines joins
	// an agent's stdout lines into the records the protocol's lint reads
	// (aop-output: a report block is one record).
	controlLine func(r *conform.Record) bool
	mergeLines  func(l *Launch)
	// freeStdout: the binding gives the orchestrator's own stdout no protocol
	// role (orchmsg, aof: the protocol runs on the agent's streams or files;
	// aos: over HTTP), so its lines there are logs (a banner, pino JSON):
	// recorded with stream "control", never linted as messages.
	freeStdout bool
	// readBack reads what the orchestrator left in the scratch directory once it
	// has ended (aof: the data directory) into session facts; launchPrelude gives
	// the records that open a launch's session after its start (aof: the
	// inputs/handoff.json the launched task had).
	readBack      func(h *harness.H)
	launchPrelude func(h *harness.H, l *Launch) []conform.Record
	// dispatchSummary is what a launch was dispatched (aop2: the TASK's target
	// and attempt); afterLaunches the decisions listed after the launches,
	// before the orchestrator's own end (aof: each task's final status; aop2:
	// the EVENTs it emitted; aop-output: what it took of each report).
	dispatchSummary func(s *conform.Session, l *Launch) string
	afterLaunches   func(s *conform.Session) []string
	// undecided reports, while the orchestrator runs, that what it decides is
	// not observable yet although every agent has ended (aof: a task still in
	// progress, waiting for its heartbeat to expire): the harness does not stop
	// a daemon then (settle.go).
	undecided func(h *harness.H) bool
}

var sides = map[string]*side{}

// Protocols lists the protocols with an orchestrator side, sorted.
func Protocols() []string { return slices.Sorted(maps.Keys(sides)) }

// Driver returns the driver that plays one orchestrator-side scenario: mockagent
// (the program at mockagentPath, with extra arguments) is the agent the
// orchestrator under test launches.
func Driver(mockagentPath string, extra ...string) func(h *harness.H) error {
	return func(h *harness.H) error { return drive(h, mockagentPath, extra) }
}

func drive(h *harness.H, mock string, extra []string) error {
	sc := h.Scenario()
	sd := sides[sc.Protocol]
	if sd == nil {
		return harness.Errorf("protocol %s has no orchestrator side yet", sc.Protocol)
	}
	if sd.drive != nil {
		return sd.drive(h)
	}
	key := sd.key
	dir := filepath.Join(h.Scratch(), ".aopkit")
	obs := filepath.Join(dir, "observe")
	if err := os.MkdirAll(obs, 0o755); err != nil {
		return harness.Errorf("scratch: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(h.Scratch(), "workspace"), 0o755); err != nil {
		return harness.Errorf("workspace: %v", err)
	}
	task := h.Expand(sc.Task)
	if c, err := harness.Compact(task); err == nil {
		task = c
	}
	taskPath := filepath.Join(dir, "task.json")
	if err := os.WriteFile(taskPath, append(task, '\n'), 0o644); err != nil {
		return harness.Errorf("task file: %v", err)
	}
	var su setup
	if len(sc.Setup) > 0 {
		if err := json.Unmarshal(sc.Setup, &su); err != nil {
			return harness.Errorf("scenario %s: setup: %v", sc.ID, err)
		}
	}
	var agentEnv []string
	if len(su.Mockagent) > 0 {
		scriptPath := filepath.Join(dir, "mockagent-script.json")
		if err := safefile.WriteFile(scriptPath, append(append([]byte(nil), su.Mockagent...), '\n'), 0o644, false); err != nil {
			return harness.Errorf("mockagent script: %v", err)
		}
		agentEnv = append(agentEnv, mockagent.EnvScript+"="+scriptPath)
	}
	pidFile := filepath.Join(dir, "orchestrator.pid")
	args := append([]string{mock, "--protocol", sc.Protocol, "--observe", obs, "--watch-orchestrator", pidFile}, extra...)
	if f := sc.Env[EnvMockFault]; f != "" {
		args = append(args, "--fault", f)
	}
	agentPath := filepath.Join(dir, "agent")
	if err := os.WriteFile(agentPath, []byte(agentScript(agentEnv, args)), 0o755); err != nil {
		return harness.Errorf("agent command: %v", err)
	}
	harness.SetFact(h, FactTask, string(task))
	files := map[string]string{}
	for rel, content := range su.Files {
		p, ok := h.Inside(rel)
		if !ok || filepath.IsAbs(rel) {
			return harness.Errorf("scenario %s: setup file %q is not inside the scratch directory", sc.ID, rel)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return harness.Errorf("setup: %v", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return harness.Errorf("setup: %v", err)
		}
		files[filepath.ToSlash(rel)] = p
	}
	harness.SetFact(h, FactFilesBefore, su.Files)
	a, err := h.Launch(task, EnvAgent+"="+agentPath, EnvTask+"="+taskPath, EnvMockProgram+"="+mock)
	if err != nil {
		return err
	}
	// The agents' observations record when the orchestrator ends (mockagent
	// --watch-orchestrator): after that nothing is its doing.
	if pid := a.PID(); pid > 0 {
		if err := safefile.WriteFile(pidFile, []byte(strconv.Itoa(pid)+"\n"), 0o644, false); err != nil {
			return harness.Errorf("orchestrator pid file: %v", err)
		}
	}
	// The start-up allowance, as for agents: the orchestrator's timers (the
	// scenario deadline) start at its first sign of life, its first agent
	// launch or output line; the scenario ends once it is decided (settle.go).
	st := newSettler(sc, obs)
	st.undecided = sd.undecided
	collect := collectJudged(sd.controlLine, sd.freeStdout)
	err = a.Run(harness.Handler{
		Key: key,
		// The process under test is the orchestrator: its lines are its own.
		Collect: func(r conform.Record, final bool) []conform.Record {
			if !final {
				st.line(r.Time)
			}
			return collect(r, final)
		},
		Monitor: st.monitor(h),
	})
	if err != nil {
		return err
	}
	after := map[string]*string{}
	refused := h.Refused(func() int { return a.N() })
	for rel, p := range files {
		// Inside the scratch directory only: a link the orchestrator put in
		// the file's place is not followed out (nor copied into the report).
		b, err := safefile.ReadFileIn(h.Scratch(), p, 1<<20)
		var se *safefile.Error
		if errors.As(err, &se) {
			refused(p, strings.TrimPrefix(se.Error(), se.Path+": "))
		}
		if err == nil {
			c := string(b)
			after[rel] = &c
		} else {
			after[rel] = nil
		}
	}
	harness.SetFact(h, FactFiles, after)
	if sd.readBack != nil {
		sd.readBack(h)
	}
	launches, more, err := readObservations(obs)
	if err != nil {
		return harness.Errorf("reading the agent's observations: %v", err)
	}
	if sd.mergeLines != nil {
		for i := range launches {
			sd.mergeLines(&launches[i])
		}
	}
	if more {
		h.Event(0, conform.EventLaunchesTruncated, conform.Details(conform.KeyKept.Is(MaxLaunches), conform.KeyReason.Is("the orchestrator started the agent more often: the rest is not judged")))
	}
	attribute(launches, a.Attempt(), h.ScaleFactor())
	for i := range launches {
		recordLaunch(h, &launches[i], key)
	}
	harness.SetFact(h, FactLaunches, launches)
	return nil
}

// agentScript is the agent command of a scenario: a shell script that runs
// args (mockagent's command line) with env (KEY=VALUE) set. Whatever arguments
// the orchestrator passes its agent command (a host's own flags, a prompt)
// come after "--": mockagent records them (its observation's start) and never
// refuses them. AgentCommand reads it back.
func agentScript(env, args []string) string {
	var q []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		q = append(q, k+"="+shellQuote(v))
	}
	q = append(q, "exec")
	for _, a := range args {
		q = append(q, shellQuote(a))
	}
	return "#!/bin/sh\n# The agent of this scenario: mockagent, observed by aopconform.\n" + strings.Join(q, " ") + " -- \"$@\"\n"
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// collectJudged is the harness's Collect for the process under test: its lines
// are its own (From Judged), and a stdout line controlLine (nil: none) marks is
// the binding's, no protocol message (aop-output: the report the parent took):
// recorded with stream "control", evidence not linted as a message.
func collectJudged(controlLine func(r *conform.Record) bool, freeStdout bool) func(r conform.Record, final bool) []conform.Record {
	return func(r conform.Record, final bool) []conform.Record {
		if final {
			return nil
		}
		r.From = Judged
		if controlLine != nil && r.Stream == "stdout" && controlLine(&r) {
			r.Stream = "control"
		}
		if freeStdout && r.Stream == "stdout" {
			r.Stream = "control"
			r.Detail = conform.Details(conform.KeyNote.Is("the orchestrator's own stdout: no protocol channel under this binding (a log line), not linted"))
		}
		return []conform.Record{r}
	}
}

// recordLaunch adds what one agent launch saw to the transcript, as its own
// session "<scenario>/agent#N": the orchestrator's stdin lines, the agent's
// stdout lines, the signals, the end of its input and its exit.
func recordLaunch(h *harness.H, l *Launch, key func(r *conform.Record) string) {
	session := fmt.Sprintf("%s/agent#%d", h.Scenario().ID, l.N)
	h.Record(conform.Record{From: conform.ActorHarness, Event: conform.EventAgentStart, Time: l.Start, Session: session,
		Detail: conform.Details(conform.KeyPID.Is(l.PID), conform.KeyLaunchedBy.Is(conform.ByUnderTest), conform.KeyLaunch.Is(l.N))})
	if sd := sides[h.Scenario().Protocol]; sd != nil && sd.launchPrelude != nil {
		for _, r := range sd.launchPrelude(h, l) {
			r.Session = session
			h.Record(r)
		}
	}
	for i := range l.Events {
		e := &l.Events[i]
		r := conform.Record{Time: e.At, Session: session}
		switch e.Kind {
		case "stdin", "stdout":
			r.From, r.Stream = conform.ActorAgent, "stdout"
			if e.Kind == "stdin" {
				r.From, r.Stream = Judged, "stdin"
			}
			if harness.IsJSONObject([]byte(e.Line)) {
				r.Msg = json.RawMessage(e.Line)
				r.Key = key(&r)
			} else {
				t := e.Line
				r.Text = &t
			}
		case "stdin-eof":
			r.From, r.Event = conform.ActorHarness, conform.EventCloseStdin
			r.Detail = conform.Details(conform.KeyBy.Is(actor(e)))
		case "signal":
			r.From, r.Event = conform.ActorHarness, conform.EventSignal
			r.Detail = conform.Details(conform.KeySignal.Is(e.Signal), conform.KeyBy.Is(actor(e)))
		case "exit":
			r.From, r.Event = conform.ActorHarness, conform.EventAgentExit
			r.Detail = conform.Details(conform.KeyExitCode.Is(e.Code))
		case "orchestrator-exit":
			// From here on nothing that happens to the agent is the
			// orchestrator's doing.
			r.From, r.Event = conform.ActorHarness, conform.EventOrchestratorGone
			r.Detail = conform.Details(conform.KeySeenBy.Is("the agent (mockagent --watch-orchestrator)"))
		default:
			continue
		}
		r = h.Record(r)
		e.Seq, e.Key = r.Seq, r.Key
	}
	if l.HarnessKilled != "" {
		h.Record(conform.Record{From: conform.ActorHarness, Event: conform.EventKill, Time: l.LastSeen(), Session: session,
			Detail: conform.Details(conform.KeySignal.Is("SIGKILL"), conform.KeyBy.Is(l.HarnessKilled), conform.KeyNote.Is("the agent's last observation; it died within the clean-up"))})
	}
}

// actor says who did what an observation shows.
func actor(e *Event) conform.By {
	if e.By != "" {
		return e.By
	}
	return conform.ByUnderTest
}

// ReadBounded reads a regular file of at most max bytes: a larger one, a FIFO, a
// device or a directory is an error (safefile), never waited on nor read without
// end. The orchestrator under test writes most of the files it is given.
func ReadBounded(name string, max int64) ([]byte, error) {
	return safefile.ReadFile(name, max)
}

// Info is what a third party needs to know of one orchestrator-side scenario
// (aopconform list --side orchestrator): the task it is given, the agent's cue
// and the files seeded before it starts.
type Info struct {
	// Task is the scenario's task, as written to $AOPKIT_TASK (placeholders
	// such as ${SCRATCH} unexpanded).
	Task json.RawMessage `json:"task"`
	// Cue says how the agent misbehaves (or not): the fault every launch plays,
	// the out-of-band script, aop2's x_mockagent.
	Cue   string   `json:"agent_cue"`
	Setup []string `json:"setup_files,omitempty"`
}

// Describe returns the scenario's Info.
func Describe(sc *conform.Scenario) Info {
	in := Info{Task: sc.Task}
	if c, err := harness.Compact(sc.Task); err == nil {
		in.Task = c
	}
	var cue []string
	if f := sc.Env[EnvMockFault]; f != "" {
		cue = append(cue, "fault "+f+" on every launch")
	}
	var su setup
	if len(sc.Setup) > 0 && json.Unmarshal(sc.Setup, &su) == nil {
		if len(su.Mockagent) > 0 {
			b, _ := harness.Compact(su.Mockagent)
			cue = append(cue, "script "+string(b)+" ($"+mockagent.EnvScript+")")
		}
		in.Setup = slices.Sorted(maps.Keys(su.Files))
	}
	var t struct {
		Task struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"task"`
	}
	if json.Unmarshal(sc.Task, &t) == nil {
		if x := t.Task.Extensions["x_mockagent"]; len(x) > 0 {
			b, _ := harness.Compact(x)
			cue = append(cue, "task.extensions.x_mockagent "+string(b))
		}
	}
	if len(cue) == 0 {
		cue = []string{"none: the correct agent"}
	}
	in.Cue = strings.Join(cue, "; ")
	return in
}

// filter is the elements of xs that keep holds for, in order (nil for none).
func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// scaleOf is the session's --timeout-scale factor (1 when unset).
func scaleOf(s *conform.Session) float64 {
	if s.Scale <= 0 {
		return 1
	}
	return s.Scale
}

// AgentCommand reads back the agent command the driver wrote (the executable
// $AOPKIT_AGENT names): the environment it sets (KEY=VALUE) and the mockagent
// command line it runs (the program first), without the arguments the
// orchestrator passes it. A launcher that plays the agent in-process
// (cmd/aopconform's tests) runs that command line, then the orchestrator's
// arguments after it.
func AgentCommand(path string) (env, args []string, err error) {
	b, err := ReadBounded(path, 1<<20)
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") || !strings.Contains(line, "exec ") {
			continue
		}
		words, err := shellWords(line)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		i := slices.Index(words, "exec")
		if i < 0 || !slices.Equal(words[len(words)-1:], []string{`"$@"`}) {
			return nil, nil, fmt.Errorf("%s: not an agent command of this driver", path)
		}
		return words[:i], words[i+1 : len(words)-1], nil
	}
	return nil, nil, fmt.Errorf("%s: no exec line", path)
}

// shellWords splits a line of the agent command into words: single-quoted
// parts (shellQuote) and bare characters, `"$@"` kept as it is.
func shellWords(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // inside a word
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			if in {
				words, in = append(words, w.String()), false
				w.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated quote")
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '\\' && i+1 < len(line):
			w.WriteByte(line[i+1])
			i++
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
