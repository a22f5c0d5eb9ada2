package conform

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
)

func res(tier Tier, level Level, v Verdict) Result {
	return Result{Tier: tier, Level: level, Verdict: v}
}

func TestScoreResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         []Result
		level      Tier
		mustRate   float64
		shouldRate float64
		mustFailed bool
	}{
		{"nothing", nil, "", 0, 0, false},
		{"all pass", []Result{res(Core, MUST, Pass), res(Resilient, MUST, Pass), res(Full, MUST, Pass), res(Full, SHOULD, Pass)}, Full, 1, 1, false},
		{"core fails blocks everything", []Result{res(Core, MUST, Fail), res(Resilient, MUST, Pass), res(Full, MUST, Pass)}, "", 2.0 / 3, 0, true},
		{"not-tested is no pass", []Result{res(Core, MUST, Pass), res(Resilient, MUST, NotTested)}, Core, 0.5, 0, true},
		{"untested tier stops the ones above", []Result{res(Core, MUST, Pass), res(Full, MUST, Pass)}, Core, 1, 0, false},
		{"skips do not count", []Result{res(Core, MUST, Pass), res(Core, MUST, Skip)}, Core, 1, 0, false},
		{"should failure keeps the level", []Result{res(Core, MUST, Pass), res(Core, SHOULD, Warn)}, Core, 1, 0, false},
		{"not-applicable is left out, fails nothing", []Result{res(Core, MUST, Pass), res(Core, MUST, NotApplicable), res(Resilient, MUST, Pass), res(Full, MUST, Pass)}, Full, 1, 0, false},
		// A fast correct agent that finished before the scripted SIGTERM passed
		// every MUST it was driven to: it is certified Full (--strict fails it).
		{"a tier with only not-applicable MUSTs is reached", []Result{res(Core, MUST, Pass), res(Resilient, MUST, NotApplicable), res(Full, MUST, Pass)}, Full, 1, 0, false},
		{"not-applicable alone reaches nothing", []Result{res(Core, MUST, NotApplicable), res(Resilient, MUST, NotApplicable)}, "", 0, 0, false},
		{"a failure above a not-applicable tier", []Result{res(Core, MUST, Pass), res(Resilient, MUST, NotApplicable), res(Full, MUST, Fail)}, Resilient, 0.5, 0, true},
		{"flaky keeps its tier unreached", []Result{res(Core, MUST, Pass), res(Resilient, MUST, Flaky), res(Full, MUST, Pass)}, Core, 2.0 / 3, 0, false},
		{"flaky is no pass and no violation", []Result{res(Core, MUST, Pass), res(Core, MUST, Flaky)}, "", 0.5, 0, false},
		{"not-judged fails", []Result{res(Core, MUST, Pass), res(Core, MUST, NotJudged)}, "", 0.5, 0, true},
		{"silent agent scores zero", []Result{res(Core, MUST, Fail), res(Core, MUST, Fail)}, "", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreResults("p", tt.in)
			if s.Level != tt.level || s.MustRate != tt.mustRate || s.ShouldRate != tt.shouldRate || s.MustFailed != tt.mustFailed {
				t.Errorf("got level %q must %.3f should %.3f failed %v; want %q %.3f %.3f %v", s.Level, s.MustRate, s.ShouldRate, s.MustFailed, tt.level, tt.mustRate, tt.shouldRate, tt.mustFailed)
			}
		})
	}
}

func TestMatchAny(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id, pat string
		want    bool
	}{
		{"aop2/6.1/heartbeat-interval", "heartbeat", true},
		{"aop2/6.1/heartbeat-interval", "aop2/6.*", true},
		{"aop2/5/final-response", "aop2/6.*", false},
		{"aop2/5/final-response", "x, final", true},
		{"aop2/5/final-response", "", false},
		{"aop2/5/final-response", "aop2/?/final-*", true},
	} {
		if got := MatchAny(tt.id, tt.pat); got != tt.want {
			t.Errorf("MatchAny(%q, %q) = %v", tt.id, tt.pat, got)
		}
	}
}

func TestParseScenario(t *testing.T) {
	if LookupCheck("aos/test-x/ok") == nil { // registered once per process: go test -count=N runs this again
		Register(&Check{ID: "aos/test-x/ok", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Run: func(*Session) Outcome { return Passf("") }})
	}
	good := `{"id":"s1","protocol":"aos","deadline":"2s","task":{"task":"t"},"checks":["aos/test-x/ok"],"steps":[{"on":"quiet","after":"1s","do":"terminate"}]}`
	if _, err := ParseScenario("good.json", []byte(good)); err != nil {
		t.Fatalf("good scenario: %v", err)
	}
	bad := map[string]string{
		"unknown field":    `{"id":"s","protocol":"aos","deadline":"1s","task":{},"checks":["aos/test-x/ok"],"bogus":1}`,
		"unknown check":    `{"id":"s","protocol":"aos","deadline":"1s","task":{},"checks":["nope"]}`,
		"unknown protocol": `{"id":"s","protocol":"zzz","deadline":"1s","task":{},"checks":["aos/test-x/ok"]}`,
		"no deadline":      `{"id":"s","protocol":"aos","task":{},"checks":["aos/test-x/ok"]}`,
		"bad step":         `{"id":"s","protocol":"aos","deadline":"1s","task":{},"checks":["aos/test-x/ok"],"steps":[{"do":"explode"}]}`,
		"bad trigger":      `{"id":"s","protocol":"aos","deadline":"1s","task":{},"checks":["aos/test-x/ok"],"steps":[{"on":"later","do":"kill"}]}`,
		"bad decision":     `{"id":"s","protocol":"aos","deadline":"1s","task":{},"checks":["aos/test-x/ok"],"decisions":[{"tool":"x","decision":"maybe"}]}`,
		"negative":         `{"id":"s","protocol":"aos","deadline":"-1s","task":{},"checks":["aos/test-x/ok"]}`,
		"not json":         `{`,
		"attempts":         `{"id":"s","protocol":"aos","deadline":"1s","task":{},"checks":["aos/test-x/ok"],"attempts":[{}]}`,
	}
	for name, src := range bad {
		_, err := ParseScenario(name, []byte(src))
		if err == nil {
			t.Errorf("%s: want an error", name)
		} else if name == "attempts" && !strings.Contains(err.Error(), "the engine's decisions") {
			t.Errorf("attempts: %v, want the reason", err)
		}
	}
	fsys := fstest.MapFS{"a/one.json": {Data: []byte(good)}, "b/two.json": {Data: []byte(good)}}
	if _, err := LoadScenarios(fsys, "."); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("duplicate ids: err = %v", err)
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	var d Duration
	if err := json.Unmarshal([]byte(`"1.5s"`), &d); err != nil || d.D(2).String() != "3s" {
		t.Errorf("got %v %v", d, err)
	}
	if err := json.Unmarshal([]byte(`250`), &d); err != nil || d.D(1).String() != "250ms" {
		t.Errorf("ms form: %v %v", d, err)
	}
	if err := json.Unmarshal([]byte(`"soon"`), &d); err == nil {
		t.Error("want an error")
	}
}

// TestMustsExercised: "MUSTs exercised N of M" counts every selected MUST and those
// not NOT-APPLICABLE.
func TestMustsExercised(t *testing.T) {
	t.Parallel()
	s := ScoreResults("p", []Result{res(Core, MUST, Pass), res(Core, MUST, NotApplicable), res(Core, MUST, Fail), res(Core, MUST, Skip), res(Core, SHOULD, NotApplicable)})
	if s.MustSelected != 3 || s.MustExercised != 2 || s.NotApplicable != 2 {
		t.Errorf("selected %d exercised %d not-applicable %d; want 3, 2, 2", s.MustSelected, s.MustExercised, s.NotApplicable)
	}
}

// TestResolveDependencies: a NOT-JUDGED result stays so while the check it depends
// on reports the cause (in its scenario, or in any when it did not run there);
// otherwise it becomes the failure that names the cause.
func TestResolveDependencies(t *testing.T) {
	t.Parallel()
	nj := func(check, scenario, dep string) Result {
		return Result{Check: check, Scenario: scenario, Verdict: NotJudged, DependsOn: dep, Message: "not judged: depends on " + dep + " (why)"}
	}
	r := func(check, scenario string, v Verdict) Result {
		return Result{Check: check, Scenario: scenario, Verdict: v}
	}
	rs := []Result{
		r("root", "s1", Fail),
		nj("a", "s1", "root"), // root failed in s1: stays
		nj("b", "s2", "root"), // root did not run in s2, failed in s1: stays
		r("root", "s3", Pass),
		nj("c", "s3", "root"), // root passed in s3: the cause is not reported there
		nj("d", "s1", "gone"), // gone never ran: nothing reports it
		r("skipped", "s1", Skip),
		nj("e", "s1", "skipped"), // deselected: nothing reports it
		nj("f", "s1", "a"),       // a chain: a is NOT-JUDGED, root reports it
	}
	ResolveDependencies(rs)
	want := map[string]Verdict{"a": NotJudged, "b": NotJudged, "c": Fail, "d": Fail, "e": Fail, "f": NotJudged}
	for _, x := range rs {
		if w, ok := want[x.Check]; ok && x.Verdict != w {
			t.Errorf("%s in %s: %s, want %s (%s)", x.Check, x.Scenario, x.Verdict, w, x.Message)
		}
		if x.Verdict == Fail && x.DependsOn != "" && (strings.HasPrefix(x.Message, "not judged") || !strings.Contains(x.Message, "why")) {
			t.Errorf("%s: the failure must name the cause: %q", x.Check, x.Message)
		}
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"ééééé", 2, "éé…"}, // cut between characters, never inside one
		{"ééé", 3, "ééé"},
	} {
		if got := Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// TestApplyCauses: a failure of a check declared After a check that failed in the
// same scenario is NOT-JUDGED under it (never both of a cycle), and a catch-all
// lint failure whose findings another failing check reports is NOT-JUDGED under
// that check.
func TestApplyCauses(t *testing.T) {
	Register(
		&Check{ID: "aos/test-causes/root", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Lint: []string{"R-1"}, Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aos/test-causes/exit", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", After: []string{"aos/test-causes/root"}, Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aos/test-causes/ping", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", After: []string{"aos/test-causes/pong"}, Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aos/test-causes/pong", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", After: []string{"aos/test-causes/ping"}, Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aos/test-causes/lint", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Lint: []string{"*"}, Run: func(*Session) Outcome { return Passf("") }},
	)
	f := func(check, scenario string, v Verdict, rules ...string) Result {
		r := Result{Check: check, Scenario: scenario, Verdict: v, Message: "own"}
		for _, rule := range rules {
			r.Lint = append(r.Lint, LintFinding{Rule: rule, Severity: "error", Seq: 3})
		}
		return r
	}
	rs := []Result{
		f("aos/test-causes/root", "s1", Fail, "R-1"),
		f("aos/test-causes/exit", "s1", Fail),               // root failed here: a consequence
		f("aos/test-causes/exit", "s2", Fail),               // root did not fail in s2: its own failure
		f("aos/test-causes/ping", "s1", Fail),               // a cycle: one of the two stays FAIL
		f("aos/test-causes/pong", "s1", Fail),               //
		f("aos/test-causes/lint", "s2", Fail, "R-1"),        // R-1 is reported by root (in s1)
		f("aos/test-causes/lint", "s3", Fail, "R-1", "R-2"), // R-2 is reported by nobody else
		// NOT-JUDGED under a check that did not fail: a root declared for its
		// check that failed (root, not run in s4, failed in s1) names the cause.
		{Check: "aos/test-causes/exit", Scenario: "s4", Verdict: NotJudged, DependsOn: "aos/test-causes/gone", Message: "not judged: depends on aos/test-causes/gone (why)"},
		{Check: "aos/test-causes/gone", Scenario: "s4", Verdict: Pass},
		// root does not judge s5, but a check of s5 is NOT-JUDGED under it by its
		// own evidence: the cause is shown in s5, exit is its consequence there.
		{Check: "aos/test-causes/lint", Scenario: "s5", Verdict: NotJudged, DependsOn: "aos/test-causes/root", Message: "not judged: depends on aos/test-causes/root (none sent)"},
		f("aos/test-causes/exit", "s5", Fail),
	}
	ApplyCauses(rs)
	ResolveDependencies(rs)
	want := []Verdict{Fail, NotJudged, Fail, NotJudged, Fail, NotJudged, Fail, NotJudged, Pass, NotJudged, NotJudged}
	for i, x := range rs {
		if x.Verdict != want[i] {
			t.Errorf("%s in %s: %s, want %s (%s)", x.Check, x.Scenario, x.Verdict, want[i], x.Message)
		}
	}
	if rs[1].DependsOn != "aos/test-causes/root" || !strings.Contains(rs[1].Message, "own") {
		t.Errorf("consequence: depends on %q, message %q; want root and its own message kept", rs[1].DependsOn, rs[1].Message)
	}
	if rs[7].DependsOn != "aos/test-causes/root" || !strings.Contains(rs[7].Message, "through aos/test-causes/gone: why") {
		t.Errorf("re-attributed: depends on %q, message %q; want root, through gone", rs[7].DependsOn, rs[7].Message)
	}
}

// TestApplyCausesChain: a failure of a check declared After a check that is
// NOT-JUDGED in the same scenario under a third that failed is NOT-JUDGED under
// that third (the chain followed to its root); a chain that ends in no failure
// leaves it failing.
func TestApplyCausesChain(t *testing.T) {
	Register(
		&Check{ID: "aop2/test-chain/rate", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aop2/test-chain/timeout", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", After: []string{"aop2/test-chain/rate"}, Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aop2/test-chain/exit", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", After: []string{"aop2/test-chain/timeout"}, Run: func(*Session) Outcome { return Passf("") }},
	)
	rs := []Result{
		{Check: "aop2/test-chain/rate", Scenario: "s1", Verdict: Fail, Message: "flood"},
		{Check: "aop2/test-chain/timeout", Scenario: "s1", Verdict: Fail, Message: "late"},
		{Check: "aop2/test-chain/exit", Scenario: "s1", Verdict: Fail, Message: "stopped"},
		// s2: timeout NOT-JUDGED under a check that passed there: no root.
		{Check: "aop2/test-chain/rate", Scenario: "s2", Verdict: Pass},
		{Check: "aop2/test-chain/timeout", Scenario: "s2", Verdict: NotJudged, DependsOn: "aop2/test-chain/rate", Message: "not judged: depends on aop2/test-chain/rate (x)"},
		{Check: "aop2/test-chain/exit", Scenario: "s2", Verdict: Fail, Message: "stopped"},
	}
	rs = append(rs,
		// s3: timeout NOT-JUDGED under rate, which does not judge s3 but failed
		// in s1: exit is rate's consequence there too.
		Result{Check: "aop2/test-chain/timeout", Scenario: "s3", Verdict: NotJudged, DependsOn: "aop2/test-chain/rate", Message: "not judged: depends on aop2/test-chain/rate (x)"},
		Result{Check: "aop2/test-chain/exit", Scenario: "s3", Verdict: Fail, Message: "stopped"},
		// s4: exit's declared cause does not judge s4: its failure is its own.
		Result{Check: "aop2/test-chain/exit", Scenario: "s4", Verdict: Fail, Message: "stopped"},
	)
	ApplyCauses(rs)
	if r := rs[7]; r.Verdict != NotJudged || r.DependsOn != "aop2/test-chain/rate" {
		t.Errorf("exit in s3: %s under %q (%s); want NOT-JUDGED under rate", r.Verdict, r.DependsOn, r.Message)
	}
	if r := rs[8]; r.Verdict != Fail {
		t.Errorf("exit in s4: %s under %q; want its own FAIL (its cause judged no s4)", r.Verdict, r.DependsOn)
	}
	if r := rs[2]; r.Verdict != NotJudged || r.DependsOn != "aop2/test-chain/rate" || !strings.Contains(r.Message, "through aop2/test-chain/timeout: stopped") {
		t.Errorf("exit in s1: %s under %q (%s); want NOT-JUDGED under rate, through timeout", r.Verdict, r.DependsOn, r.Message)
	}
	if r := rs[5]; r.Verdict != Fail {
		t.Errorf("exit in s2: %s under %q; want its own FAIL (the chain ends in a pass)", r.Verdict, r.DependsOn)
	}
}

// TestAfterElsewhere: a failure of a check whose AfterElsewhere names a check
// that failed in another scenario is NOT-JUDGED under it; when that check
// failed only in the check's own scenario, the check fails and the other,
// declared After it there, is NOT-JUDGED instead: one of them fails, never none.
func TestAfterElsewhere(t *testing.T) {
	Register(
		&Check{ID: "aos/test-elsewhere/grace", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", After: []string{"aos/test-elsewhere/pending"}, Run: func(*Session) Outcome { return Passf("") }},
		&Check{ID: "aos/test-elsewhere/pending", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", AfterElsewhere: []string{"aos/test-elsewhere/grace"}, Run: func(*Session) Outcome { return Passf("") }},
	)
	f := func(check, scenario string) Result {
		return Result{Check: check, Scenario: scenario, Verdict: Fail, Message: "own"}
	}
	// Ignored everywhere: grace fails in s1 and in withheld; pending, in
	// withheld, is grace's (seen in s1).
	rs := []Result{f("aos/test-elsewhere/grace", "s1"), f("aos/test-elsewhere/grace", "withheld"), f("aos/test-elsewhere/pending", "withheld")}
	ApplyCauses(rs)
	ResolveDependencies(rs)
	for i, want := range []Verdict{Fail, Fail, NotJudged} {
		if rs[i].Verdict != want {
			t.Errorf("ignored everywhere: %s in %s: %s, want %s (%s)", rs[i].Check, rs[i].Scenario, rs[i].Verdict, want, rs[i].Message)
		}
	}
	if rs[2].DependsOn != "aos/test-elsewhere/grace" || !strings.Contains(rs[2].Message, "it failed in s1 too, the same cause: own") {
		t.Errorf("pending: depends on %q, %q", rs[2].DependsOn, rs[2].Message)
	}
	// Blocked only with a request pending: grace fails in withheld alone,
	// pending is the root there, whatever the order of the results.
	for _, rs := range [][]Result{
		{f("aos/test-elsewhere/grace", "withheld"), f("aos/test-elsewhere/pending", "withheld")},
		{f("aos/test-elsewhere/pending", "withheld"), f("aos/test-elsewhere/grace", "withheld")},
	} {
		ApplyCauses(rs)
		ResolveDependencies(rs)
		for _, r := range rs {
			want := map[string]Verdict{"aos/test-elsewhere/grace": NotJudged, "aos/test-elsewhere/pending": Fail}[r.Check]
			if r.Verdict != want {
				t.Errorf("blocked only there: %s: %s, want %s (%s)", r.Check, r.Verdict, want, r.Message)
			}
		}
	}
}

// TestRegisterDerivesProtocol: a check's Protocol is its ID's first segment,
// set by Register; an ID that starts with no protocol, or a Protocol written by
// hand that disagrees with the ID, panics.
func TestRegisterDerivesProtocol(t *testing.T) {
	c := &Check{ID: "orchmsg/test-register/ok", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Run: func(*Session) Outcome { return Passf("") }}
	Register(c)
	if c.Protocol != "orchmsg" {
		t.Errorf("Protocol = %q, want orchmsg", c.Protocol)
	}
	for _, bad := range []*Check{
		{ID: "nope/test-register/x", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Run: c.Run},
		{ID: "aof/test-register/y", Protocol: "aos", Tier: Core, Level: MUST, Spec: "s", Requirement: "r", Run: c.Run},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s, Protocol %q) did not panic", bad.ID, bad.Protocol)
				}
			}()
			Register(bad)
		}()
	}
}
