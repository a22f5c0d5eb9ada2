// Package conform is the vocabulary of aopconform: scenarios (data files), checks
// (Go values referenced by ID from scenarios), the recorded session a check reads,
// verdicts and results. The runner (conform/runner) plays scenarios against an agent,
// conform/checks holds the checks, conform/score and conform/report turn results
// into levels and reports.
package conform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all" // registers the list before Protocols is read
)

// Protocols lists the protocol IDs, sorted: those of the one list of
// protocols (lint/all.Protocols; conform/protocols.List, aopconform's full
// descriptors, holds the same).
var Protocols = lint.ProtocolIDs()

// KnownProtocol reports whether id is one of Protocols.
func KnownProtocol(id string) bool {
	for _, p := range Protocols {
		if p == id {
			return true
		}
	}
	return false
}

// Level is the strength of a requirement.
type Level string

const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
	MAY    Level = "MAY"
)

// Tier is the conformance level a check belongs to. A tier is reached when every MUST
// check of it and of every lower tier passes.
type Tier string

const (
	Core      Tier = "Core"
	Resilient Tier = "Resilient"
	Full      Tier = "Full"
)

// Tiers in ascending order.
var Tiers = []Tier{Core, Resilient, Full}

// Verdict of one check in one scenario.
type Verdict string

const (
	Pass      Verdict = "PASS"
	Fail      Verdict = "FAIL"
	Warn      Verdict = "WARN"
	Skip      Verdict = "SKIP"       // deselected by --run / --skip
	NotTested Verdict = "NOT-TESTED" // the situation the check needs never arose
	// NotApplicable: a correct agent legitimately never reached the state the check
	// needs (it finished before the step, never took an optional path). Listed in
	// every report, never a pass, never a failure; --strict makes it fail.
	NotApplicable Verdict = "NOT-APPLICABLE"
	// Flaky: a timing check that failed once and passed on confirmation (--repeat or
	// the automatic re-run); neither a pass nor a violation, reported with its margin.
	Flaky Verdict = "FLAKY"
	// NotJudged: the evidence depends on an earlier failed check ("not judged:
	// depends on CHECK"); the root cause is reported once, by that check.
	NotJudged Verdict = "NOT-JUDGED"
	// Known: a failure listed in a --known-failing file.
	Known Verdict = "KNOWN"
	// HarnessError: the machine or the harness could not judge the check within its
	// tolerance; the harness's problem, never the agent's.
	HarnessError Verdict = "HARNESS-ERROR"
)

// Check is one requirement an agent owes the other side, verified over a recorded
// session.
type Check struct {
	ID string // stable: "aop2/6.1/heartbeat-interval"
	// Protocol is the ID's first segment, set by Register: never written by hand.
	Protocol    string
	Family      string // "happy-path", "timeouts", "heartbeats", "fallbacks", "delegation", "stale-recovery", ...
	Tier        Tier
	Level       Level
	Spec        string // "aop2 §6.1" or "bindings §aop2"
	Requirement string // the sentence it enforces, quoted
	// Lint lists lint rule ID prefixes whose errors on agent messages fail this check.
	Lint []string
	// After lists the checks whose failure is a root cause of this one's: when one
	// of them fails in the same scenario, this check's own failure there is a
	// consequence and is NOT-JUDGED under it (ApplyCauses). One root cause, one
	// failure; the run fails all the same (the root cause does).
	After []string
	// AfterElsewhere lists the checks whose failure in another scenario of the
	// run shows that this check's failure is theirs: the same misbehaviour, seen
	// where this check does not look (an agent that ignores notify:shutdown in
	// every scenario also ignores it while a request of it is pending). When one
	// of them failed itself in another scenario, this check's failure is
	// NOT-JUDGED under it (ApplyCauses, before After and on the verdicts the
	// checks gave, so that a check declared After this one in the same scenario
	// fails instead: never none).
	AfterElsewhere []string
	// Requires lists the IDs of the requirements of conform/requirements the check
	// enforces, when it cites them itself (the registry's enforcer lists join the
	// others); the registry's gate fails on an ID it does not hold.
	Requires []string
	// Timing: the verdict rests on when things happened (intervals, deadlines, grace
	// periods). A failed timing check is confirmed by running its scenario again;
	// one that fails once and passes on confirmation is FLAKY.
	Timing bool
	// Bad and Good are examples: what an agent does that fails the check, and the
	// same fixed.
	Bad, Good string
	// Run judges the session. It never sees a harness error (the runner reports
	// those itself).
	Run func(s *Session) Outcome
}

// Outcome is what a check's Run decides.
type Outcome struct {
	Verdict  Verdict
	Message  string // what the agent did
	Expected string // expected vs actual, rendered as a diff in reports
	Actual   string
	Seq      []int // transcript records that are the evidence
	// DependsOn names the check whose failure left this one without evidence
	// (Verdict NotJudged): one root cause, one failure.
	DependsOn string
	// Explains lists the lint rule prefixes whose errors the root cause of a
	// NOT-JUDGED outcome explains (a reused executionId read by AOS-SEQ-008 as an
	// unmodified re-send): they do not fail the check. Any other lint error it
	// claims still does.
	Explains []string
	// Measured and Limit are a timing check's measurement and the limit it was
	// judged against (zero Limit: none); the reports show the margin between them,
	// how near a FLAKY verdict came to passing.
	Measured, Limit time.Duration
	// Sent marks a failure that rests on what the agent sent (a message in the
	// transcript, and wrong), not on something missing when the run ended: a run
	// cut short by its deadline on a slow machine cannot have caused it, so the
	// runner keeps it a FAIL whatever the harness's timer slip (OnSent).
	Sent bool
}

// Explaining marks the lint rule prefixes a NOT-JUDGED outcome's root cause
// explains (Outcome.Explains).
func (o Outcome) Explaining(prefixes ...string) Outcome {
	o.Explains = prefixes
	return o
}

// OnSent marks a failure as resting on a message the agent sent (Outcome.Sent).
func (o Outcome) OnSent() Outcome {
	o.Sent = true
	return o
}

// Timed records the measurement a timing verdict rests on and its limit.
func (o Outcome) Timed(measured, limit time.Duration) Outcome {
	o.Measured, o.Limit = measured, limit
	return o
}

// TimedBy is Timed for a requirement on when the agent of attempt a ended. An
// agent the harness stopped (a.Stopped) did not end by itself: how long it ran
// is the harness's doing, not a margin by which it missed, so the outcome stays
// untimed and no CPU wait can excuse it.
func (o Outcome) TimedBy(a *Attempt, measured, limit time.Duration) Outcome {
	if a.Stopped() {
		return o
	}
	return o.Timed(measured, limit)
}

// Clip shortens s to at most n characters (runes) for a message or an evidence
// field, marking a cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k] + "…"
		}
		i++
	}
	return s
}

// Passf, Failf, NotTestedf and Warnf build outcomes.
func Passf(format string, a ...any) Outcome {
	return Outcome{Verdict: Pass, Message: fmt.Sprintf(format, a...)}
}
func Failf(format string, a ...any) Outcome {
	return Outcome{Verdict: Fail, Message: fmt.Sprintf(format, a...)}
}
func NotTestedf(format string, a ...any) Outcome {
	return Outcome{Verdict: NotTested, Message: fmt.Sprintf(format, a...)}
}
func Warnf(format string, a ...any) Outcome {
	return Outcome{Verdict: Warn, Message: fmt.Sprintf(format, a...)}
}

// NotJudgedf is the outcome of a check whose evidence depends on the failure of
// check dep: "not judged: depends on DEP (why)". The root cause is reported once, by
// dep; ResolveDependencies turns it into a FAIL when dep did not fail in the run.
func NotJudgedf(dep, format string, a ...any) Outcome {
	return Outcome{Verdict: NotJudged, DependsOn: dep, Message: fmt.Sprintf("not judged: depends on %s (%s)", dep, fmt.Sprintf(format, a...))}
}

// Mismatch is a failure with expected and actual values.
func Mismatch(msg string, expected, actual any) Outcome {
	return Outcome{Verdict: Fail, Message: msg, Expected: render(expected), Actual: render(actual)}
}

func render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

var (
	regMu  sync.Mutex
	checks = map[string]*Check{}
)

// Register adds checks to the registry and sets each one's Protocol from its
// ID; a duplicate or incomplete check, or one whose ID starts with no known
// protocol, panics (a programming error any test catches).
func Register(cs ...*Check) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, c := range cs {
		if c.ID == "" || c.Run == nil || c.Spec == "" || c.Requirement == "" || c.Level == "" || c.Tier == "" {
			panic("conform: incomplete check " + c.ID)
		}
		if _, dup := checks[c.ID]; dup {
			panic("conform: duplicate check " + c.ID)
		}
		p, _, _ := strings.Cut(c.ID, "/")
		if !KnownProtocol(p) || c.Protocol != "" && c.Protocol != p {
			panic("conform: check " + c.ID + " names no protocol, or another than its Protocol " + c.Protocol)
		}
		c.Protocol = p
		checks[c.ID] = c
	}
}

// LookupCheck finds a registered check.
func LookupCheck(id string) *Check {
	regMu.Lock()
	defer regMu.Unlock()
	return checks[id]
}

// Checks returns the registered checks of protocol ("" for all), sorted by ID.
func Checks(protocol string) []*Check {
	regMu.Lock()
	defer regMu.Unlock()
	var out []*Check
	for _, c := range checks {
		if protocol == "" || c.Protocol == protocol {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Duration is a time.Duration written as "1.5s" in scenario files.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var ms float64
		if err2 := json.Unmarshal(b, &ms); err2 != nil {
			return fmt.Errorf("duration: want a string such as \"1.5s\": %w", err)
		}
		*d = Duration(time.Duration(ms * float64(time.Millisecond)))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	*d = Duration(v)
	return nil
}

// D returns the duration stretched by scale.
func (d Duration) D(scale float64) time.Duration {
	if scale <= 0 {
		scale = 1
	}
	return time.Duration(float64(d) * scale)
}

// MatchAny reports whether id matches any of the comma-separated patterns: a pattern
// is a substring or a path.Match-style glob ("aop2/6.*").
func MatchAny(id, patterns string) bool {
	for _, p := range strings.Split(patterns, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.Contains(id, p) || globMatch(p, id) {
			return true
		}
	}
	return false
}

func globMatch(pattern, s string) bool {
	// '*' matches any run of characters (including '/'), '?' one character.
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(pattern[1:], s[1:])
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}
