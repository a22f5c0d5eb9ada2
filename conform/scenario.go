package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aopkit/aopkit/internal/safefile"
)

// Scenario is one scripted session, read from a JSON data file under
// fixtures/scenarios/<protocol>/ (or a user's --scenarios DIR). Scenario values never
// change at run time.
type Scenario struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Protocol string `json:"protocol"`
	Family   string `json:"family"`
	// Deadline bounds the whole scenario (every attempt); --timeout-scale stretches it.
	Deadline Duration `json:"deadline"`
	// Grace is the time between SIGTERM and SIGKILL when the harness stops the
	// agent (default 2s); stretched by --timeout-scale.
	Grace Duration `json:"grace,omitempty"`
	// Task is what the harness sends first: the aop2 TASK, the orchmsg
	// notify:task-assigned payload, the aos work script, the aop-output task line, or
	// the aof task (frontmatter fields and body). ${SCRATCH}, ${WORKSPACE},
	// ${SCENARIO} and ${NOW} are replaced before sending.
	Task json.RawMessage `json:"task"`
	// Steps are what the orchestrator side injects, in time.
	Steps []Step `json:"steps,omitempty"`
	// Withhold lists request types (orchmsg) the harness never answers.
	Withhold []string `json:"withhold,omitempty"`
	// Reject lists request types (orchmsg) the harness answers with response:error.
	Reject []string `json:"reject,omitempty"`
	// Decisions are the guardian's answers (aos), by tool name.
	Decisions []Decision `json:"decisions,omitempty"`
	// Setup prepares the scratch directory (aof: prior run artifacts).
	Setup json.RawMessage `json:"setup,omitempty"`
	// Env is added to the agent's environment.
	Env map[string]string `json:"env,omitempty"`
	// Checks are the IDs of the checks judged over this scenario's session.
	Checks []string `json:"checks"`

	// Source is the file the scenario was read from (not part of the file).
	Source string `json:"-"`
}

// Step is one thing the orchestrator side does during a scenario.
type Step struct {
	// On is what starts the step's timer: "start" (the agent's first sign of life,
	// or the end of the start-up allowance; default), "launch" (the attempt's
	// start: for orchestrator actions that must reach every agent however fast,
	// never for a timing requirement), "first-message" (the agent's
	// first protocol message), "quiet" (the agent wrote nothing on stdout for
	// After), "done" (the agent reported its task done: orchmsg progress 1 or
	// event:error) or "message:KEY" (the first agent message whose key matches,
	// such as "message:request:ask-user" or "message:EVENT/HEARTBEAT").
	On string `json:"on,omitempty"`
	// After is the delay after the trigger.
	After Duration `json:"after,omitempty"`
	// Do is the action: "cancel" (orchmsg notify:task-cancelled), "shutdown" (orchmsg
	// notify:shutdown with Grace), "terminate" (SIGTERM to the group), "kill"
	// (SIGKILL), "close-stdin", "send" (Message verbatim on stdin), "expire-timeout"
	// (aop2: the effective timeout expires now), "escalate" (aop2: Message is
	// {"new_priority": ..., "escalated_by": ...}, announced as PRIORITY_ESCALATION).
	Do      string          `json:"do"`
	Grace   Duration        `json:"grace,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Message json.RawMessage `json:"message,omitempty"`
	// Attempt limits the step to one attempt (1-based; 0 = every attempt).
	Attempt int `json:"attempt,omitempty"`
}

// Decision is the guardian's answer to a tool call.
type Decision struct {
	Tool string `json:"tool"`
	// Decision is allow, deny or modify; "error" answers with a JSON-RPC internal
	// error, "stall" never answers (until the scenario ends).
	Decision string `json:"decision"`
	// Arguments are the argument values the guardian sets in the modified request
	// (Decision modify).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Message   string          `json:"message,omitempty"`
}

var validDo = map[string]bool{"cancel": true, "shutdown": true, "terminate": true, "kill": true, "close-stdin": true, "send": true, "expire-timeout": true, "escalate": true}

// Validate reports what is wrong with a scenario; checks must be registered.
func (s *Scenario) Validate() error {
	var errs []string
	if s.ID == "" {
		errs = append(errs, "id is required")
	}
	if !KnownProtocol(s.Protocol) {
		errs = append(errs, fmt.Sprintf("protocol %q is not one of %v", s.Protocol, Protocols))
	}
	if s.Deadline <= 0 {
		errs = append(errs, "deadline is required (such as \"5s\")")
	}
	if len(s.Task) == 0 {
		errs = append(errs, "task is required")
	} else if !json.Valid(s.Task) {
		errs = append(errs, "task is not valid JSON")
	}
	if len(s.Checks) == 0 {
		errs = append(errs, "checks: at least one check ID is required")
	}
	for _, id := range s.Checks {
		c := LookupCheck(id)
		if c == nil {
			errs = append(errs, fmt.Sprintf("check %q is unknown (see aopconform list)", id))
		} else if c.Protocol != s.Protocol {
			errs = append(errs, fmt.Sprintf("check %q belongs to protocol %s", id, c.Protocol))
		}
	}
	for i, st := range s.Steps {
		if !validDo[st.Do] {
			errs = append(errs, fmt.Sprintf("steps[%d].do %q is not one of cancel, shutdown, terminate, kill, close-stdin, send", i, st.Do))
		}
		if st.On != "" && st.On != "start" && st.On != "launch" && st.On != "first-message" && st.On != "quiet" && st.On != "done" && !strings.HasPrefix(st.On, "message:") {
			errs = append(errs, fmt.Sprintf("steps[%d].on %q: want start, first-message, quiet, done or message:KEY", i, st.On))
		}
		if st.Do == "send" && !json.Valid(st.Message) {
			errs = append(errs, fmt.Sprintf("steps[%d].message is not valid JSON", i))
		}
	}
	for i, d := range s.Decisions {
		if d.Decision != "allow" && d.Decision != "deny" && d.Decision != "modify" && d.Decision != "error" && d.Decision != "stall" {
			errs = append(errs, fmt.Sprintf("decisions[%d].decision %q: want allow, deny, modify, error or stall", i, d.Decision))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("scenario %s (%s): %s", s.ID, s.Source, strings.Join(errs, "; "))
	}
	return nil
}

// ParseScenario reads one scenario file, rejecting unknown fields.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		if strings.Contains(err.Error(), `unknown field "attempts"`) {
			// Scenarios of earlier versions scripted aop2 re-dispatches.
			err = fmt.Errorf("%w: re-dispatches (retries, fallbacks by trigger) are the engine's decisions, not scripted attempts: use the steps expire-timeout or kill", err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s.Source = name
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// LoadScenarios reads every *.json file under root in fsys (recursively), sorted by
// protocol then ID. Duplicate IDs are an error.
func LoadScenarios(fsys fs.FS, root string) ([]*Scenario, error) {
	return loadScenarios(fsys, root, func(p string, _ fs.DirEntry) ([]byte, error) { return fs.ReadFile(fsys, p) })
}

func loadScenarios(fsys fs.FS, root string, read func(p string, d fs.DirEntry) ([]byte, error)) ([]*Scenario, error) {
	var out []*Scenario
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".json" {
			return nil
		}
		b, err := read(p, d)
		if err != nil {
			return err
		}
		s, err := ParseScenario(p, b)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, sortScenarios(out)
}

// LoadScenarioDir reads scenarios from a directory on disk.
func LoadScenarioDir(dir string) ([]*Scenario, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--scenarios %s: not a directory", dir)
	}
	// The files are the user's, but the directory may hold anything: a *.json
	// that is a FIFO, a device or a link leading out of the directory is an
	// error naming it, never waited on or read without end.
	ss, err := loadScenarios(os.DirFS(abs), ".", func(p string, d fs.DirEntry) ([]byte, error) {
		full := filepath.Join(abs, filepath.FromSlash(p))
		b, err := safefile.ReadFileIn(abs, full, safefile.MaxSmall)
		if err != nil {
			return nil, fmt.Errorf("--scenarios %s: %w", dir, err)
		}
		return b, nil
	})
	for _, s := range ss {
		s.Source = filepath.Join(dir, filepath.FromSlash(s.Source))
	}
	return ss, err
}

func sortScenarios(ss []*Scenario) error {
	sort.SliceStable(ss, func(i, j int) bool {
		if ss[i].Protocol != ss[j].Protocol {
			return ss[i].Protocol < ss[j].Protocol
		}
		return ss[i].ID < ss[j].ID
	})
	for i := 1; i < len(ss); i++ {
		if ss[i].ID == ss[i-1].ID {
			return fmt.Errorf("scenario id %q is defined twice (%s and %s)", ss[i].ID, ss[i-1].Source, ss[i].Source)
		}
	}
	return nil
}
