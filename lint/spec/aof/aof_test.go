package aof

import (
	"slices"
	"testing"
	"time"
)

func TestStateMachine(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{{InProgress, Review, true}, {InProgress, Done, false}, {Blocked, InProgress, false}, {Blocked, Review, true}, {Done, Review, false}, {"x", Ready, false}} {
		if ValidTransition(c.from, c.to) != c.ok {
			t.Errorf("%s → %s: want %v", c.from, c.to, c.ok)
		}
	}
	if len(AllowedFrom(Done)) != 0 || !IsStatus(Cancelled) || IsStatus("in_progress") {
		t.Error("terminal or statuses")
	}
	for _, c := range []struct {
		cur     string
		review  bool
		outcome string
		want    []string
	}{
		{InProgress, true, OutcomeDone, []string{Review}},
		{InProgress, false, OutcomeDone, []string{Review, Done}},
		{Done, false, OutcomeDone, nil},
		{InProgress, true, OutcomeBlocked, []string{Blocked}},
		{InProgress, true, OutcomePartial, []string{Review}},
		{InProgress, true, "finished", nil},
	} {
		if got := CompletionTransitions(c.cur, c.review, c.outcome); !slices.Equal(got, c.want) {
			t.Errorf("CompletionTransitions(%s, %v, %s) = %v, want %v", c.cur, c.review, c.outcome, got, c.want)
		}
	}
}

// TestStale: the scheduler treats expiresAt <= now as stale, so a heartbeat is
// already stale at its expiresAt.
func TestStale(t *testing.T) {
	last := time.Date(2026, 2, 9, 21, 0, 0, 0, time.UTC)
	exp := ExpiresAt(last, DefaultTTL)
	if !exp.Equal(last.Add(5*time.Minute)) || Stale(exp, exp.Add(-time.Millisecond)) || !Stale(exp, exp) || !Stale(exp, exp.Add(time.Second)) {
		t.Error("expiry")
	}
	if NestedDelegation(0) || !NestedDelegation(1) {
		t.Error("depth guard")
	}
	if !ValidTaskID("TASK-2026-02-09-057") || ValidTaskID("TASK-2026-02-09-057-01") || !UpstreamTaskID("TASK-2026-02-09-057-01") {
		t.Error("task ids")
	}
	if r, ok := TrimPrefix("  AOF/1 {}"); !ok || r != "{}" {
		t.Errorf("TrimPrefix %q %v", r, ok)
	}
	if FormatTime(last) != "2026-02-09T21:00:00.000Z" || !KnownType(TypeHandoffAccepted) || KnownType("task.progress") || !ValidOutcome(OutcomeNeedsReview) {
		t.Error("format, types or outcomes")
	}
}
