package orchside

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/mockagent"
)

// An orchestrator as it ships may be a daemon: it runs until it is stopped. A
// scenario therefore ends when what the orchestrator decided is observable:
// every agent it started has ended and nothing new happened (no launch, no
// line of the orchestrator, no observation, none of its processes running or
// waiting for a CPU) for a settle period; then the
// harness stops the orchestrator itself (SIGTERM to its group, SIGKILL after
// the grace period), records "scenario-decided", and that stop is no fault of
// the orchestrator (Attempt.Decided). An orchestrator that exits by itself
// first ends the scenario as before.
const (
	// settleDone is the settle period once the orchestrator started the agent
	// at least as often as the reference engine did in the scenario (2 s let a
	// race-built reference engine be stopped before it printed, once, in CI
	// under load).
	settleDone = 3 * time.Second
	// settleShort is the settle period when it started it fewer times (a
	// retry or a fallback may still come).
	settleShort = 5 * time.Second
	// settlePoll is how often the observations are looked at.
	settlePoll = 100 * time.Millisecond
	// deadAfter: an agent whose observation file has not changed for this
	// long (it writes an alive tick every mockagent.AliveEvery) is dead.
	deadAfter = 5 * mockagent.AliveEvery
)

// settler watches the agents' observation directory for the orchestrator's
// run: the first launch (the orchestrator's first sign of life: its start-up
// is over) and the end of the scenario.
type settler struct {
	dir      string
	expected int // launches of the reference engine (at least 1)
	mu       sync.Mutex
	lastLine time.Time // the orchestrator's last output line
	decided  bool
	nextLook time.Time
	// undecided is the side's own test (nil: none).
	undecided func(h *harness.H) bool
}

func newSettler(sc *conform.Scenario, obsDir string) *settler {
	n := 0
	for _, l := range ReferenceDecisions(sc) {
		if strings.HasPrefix(l, "launch ") {
			n++
		}
	}
	return &settler{dir: obsDir, expected: max(n, 1)}
}

// line notes an output line of the orchestrator.
func (st *settler) line(t time.Time) {
	st.mu.Lock()
	if t.After(st.lastLine) {
		st.lastLine = t
	}
	st.mu.Unlock()
}

// launchState is what the observation directory shows now.
type launchState struct {
	n          int
	first      time.Time // the first launch's start
	allEnded   bool
	lastChange time.Time
}

func (st *settler) look(now time.Time) launchState {
	names, _ := filepath.Glob(filepath.Join(st.dir, "*.jsonl"))
	sort.Strings(names)
	s := launchState{n: len(names), allEnded: true}
	for i, name := range names {
		fi, err := os.Stat(name)
		if err != nil {
			continue
		}
		if i == 0 {
			if ns, err := strconv.ParseInt(strings.SplitN(filepath.Base(name), "-", 2)[0], 10, 64); err == nil {
				s.first = time.Unix(0, ns)
			}
		}
		if fi.ModTime().After(s.lastChange) {
			s.lastChange = fi.ModTime()
		}
		if !endedFile(name, fi) && now.Sub(fi.ModTime()) < deadAfter {
			s.allEnded = false
		}
	}
	return s
}

// endedFile reports whether an observation file ends with the agent's exit.
func endedFile(name string, fi os.FileInfo) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	const tail = 512
	off := max(fi.Size()-tail, 0)
	b := make([]byte, tail)
	n, _ := f.ReadAt(b, off)
	last := strings.TrimRight(string(b[:n]), "\n")
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	return strings.Contains(last, `"kind":"exit"`)
}

// monitor is the orchestrator's Handler.Monitor: it starts the orchestrator's
// timers at its first agent launch (the start-up allowance, as for agents), and
// stops it once the scenario is decided.
func (st *settler) monitor(h *harness.H) func(a *harness.Agent, now time.Time) time.Time {
	return func(a *harness.Agent, now time.Time) time.Time {
		if st.decided {
			return time.Time{}
		}
		if now.Before(st.nextLook) {
			return st.nextLook
		}
		st.nextLook = now.Add(settlePoll)
		s := st.look(now)
		att := a.Attempt()
		if s.n > 0 && att.Alive.IsZero() && !s.first.IsZero() {
			a.Alive(s.first, "first-agent-launch")
		}
		if s.n == 0 || !s.allEnded {
			return now.Add(settlePoll)
		}
		if (st.undecided != nil && st.undecided(h)) || a.Busy() {
			// Settling counts from when it became decided, and from the last
			// moment the orchestrator was seen at work (a loaded machine makes
			// its last writes late, not absent).
			st.line(now)
			return now.Add(settlePoll)
		}
		st.mu.Lock()
		last := st.lastLine
		st.mu.Unlock()
		if s.lastChange.After(last) {
			last = s.lastChange
		}
		settle := settleDone
		if s.n < st.expected {
			settle = settleShort
		}
		settle = h.Scale(settle)
		if now.Sub(last) < settle {
			return now.Add(settlePoll)
		}
		st.decided = true
		att.Decided = now
		h.Event(a.N(), conform.EventScenarioDecided, conform.Details(
			conform.KeyLaunches.Is(s.n), conform.KeySettleMS.Is(settle.Milliseconds()),
			conform.KeyReason.Is(fmt.Sprintf("every agent the orchestrator started (%d) has ended and nothing happened for %s: the harness stops the orchestrator (no fault of it)", s.n, settle)),
		))
		a.Terminate("the scenario is decided")
		return time.Time{}
	}
}
