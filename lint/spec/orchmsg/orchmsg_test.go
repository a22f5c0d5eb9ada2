package orchmsg

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestFamilyAndSender(t *testing.T) {
	for typ, want := range map[string][2]string{
		"request:delete-task":  {Request, "agent"},
		"event:progress":       {Event, "agent"},
		"response:error":       {Response, "orchestrator"},
		"notify:x-aopkit-ping": {Notify, "orchestrator"},
		"task_notification":    {"", ""},
	} {
		if f, s := Family(typ), Sender(typ); f != want[0] || s != want[1] {
			t.Errorf("%s: family %q sender %q, want %v", typ, f, s, want)
		}
	}
	if !IsAgentType("request:ask-user") || IsAgentType("notify:shutdown") || IsAgentType("request:delete-task") {
		t.Error("IsAgentType")
	}
}

func TestRequestDeadline(t *testing.T) {
	for _, c := range []struct {
		typ  string
		ms   float64
		want time.Duration
	}{
		{"request:get-task", 5000, RequestTimeout},
		{"request:ask-user", 0, RequestTimeout},
		{"request:ask-user", -1, RequestTimeout},
		{"request:ask-user", 10000, 10 * time.Second},
		{"request:ask-user", 300000, 5 * time.Minute},
		{"request:ask-user", 2e12, time.Duration(math.MaxInt64)},
		{"request:ask-user", 1e300, time.Duration(math.MaxInt64)},
	} {
		if got := RequestDeadline(c.typ, c.ms); got != c.want {
			t.Errorf("%s %v: %s, want %s", c.typ, c.ms, got, c.want)
		}
	}
}

func TestRate(t *testing.T) {
	var r Rate[int]
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// 100 messages in the first second are within the limit; the 101st, 10 ms
	// later, is over it and names message 0 as the first of the window.
	for i := 0; i < RateLimit; i++ {
		if over, _, _ := r.Add(t0.Add(time.Duration(i)*9*time.Millisecond), i); over {
			t.Fatalf("message %d over the limit", i)
		}
	}
	over, first, at := r.Add(t0.Add(999*time.Millisecond), RateLimit)
	if !over || first != 0 || !at.Equal(t0) {
		t.Fatalf("101st message: over %v first %d at %v", over, first, at)
	}
	// One second after message 1, the window holds 100 again.
	if over, _, _ := r.Add(t0.Add(9*time.Millisecond+RateWindow), 0); over {
		t.Error("a full window later the limit is kept")
	}
}

func TestSubmittedDepth(t *testing.T) {
	if d := SubmittedDepth(0); d != 1 {
		t.Errorf("a task submitted by the assigned task: depth %d", d)
	}
	if d := SubmittedDepth(0, 0, 2); d != 3 {
		t.Errorf("depending on a depth-2 task: depth %d, want 3", d)
	}
}

func TestCompletesTask(t *testing.T) {
	if !CompletesTask("event:progress", 1, true, false, false) || CompletesTask("event:progress", 0.9, true, false, false) {
		t.Error("progress")
	}
	if !CompletesTask("event:error", 0, false, false, false) || !CompletesTask("event:error", 0, false, false, true) || CompletesTask("event:error", 0, false, true, true) {
		t.Error("error")
	}
	if CompletesTask("event:log", 1, true, false, false) {
		t.Error("log")
	}
}

func TestMessageIDAndTime(t *testing.T) {
	id := MessageID("req", "agent/1")
	if !regexp.MustCompile(`^req-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("MessageID = %q, want req-<UUID v4 layout>", id)
	}
	if MessageID("req", "agent/1") != id || MessageID("req", "agent/2") == id {
		t.Errorf("MessageID must depend on the seed and only on it")
	}
	at := time.Date(2026, 2, 4, 15, 30, 0, 123e6, time.FixedZone("CET", 3600))
	if got := FormatTime(at); got != "2026-02-04T14:30:00.123Z" {
		t.Errorf("FormatTime = %q, want 2026-02-04T14:30:00.123Z", got)
	}
}

// fixedRate is Rate as it was, with its whole ring made at once: the oracle of
// the ring that grows.
type fixedRate struct {
	ring    [RateLimit + 1]rateEntry[int]
	n, next int
}

func (r *fixedRate) add(t time.Time, v int) (bool, int, time.Time) {
	r.ring[r.next] = rateEntry[int]{t, v}
	r.next = (r.next + 1) % len(r.ring)
	if r.n < len(r.ring) {
		r.n++
	}
	if r.n < len(r.ring) {
		return false, 0, time.Time{}
	}
	oldest := r.ring[r.next]
	if t.Sub(oldest.t) >= RateWindow {
		return false, 0, time.Time{}
	}
	return true, oldest.v, oldest.t
}

func TestRateAgreesWithTheFixedRing(t *testing.T) {
	rng := uint64(7)
	for run := 0; run < 20; run++ {
		var r Rate[int]
		var want fixedRate
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < 1000; i++ {
			rng = rng*6364136223846793005 + 1442695040888963407
			at = at.Add(time.Duration(rng>>33) % (time.Duration(run+1) * 3 * time.Millisecond))
			o1, f1, a1 := r.Add(at, i)
			o2, f2, a2 := want.add(at, i)
			if o1 != o2 || f1 != f2 || !a1.Equal(a2) {
				t.Fatalf("run %d message %d: %v %d %v, fixed ring %v %d %v", run, i, o1, f1, a1, o2, f2, a2)
			}
		}
	}
}

// TestRateReset: a reset Rate counts from zero again.
func TestRateReset(t *testing.T) {
	var r Rate[int]
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i <= RateLimit; i++ {
		r.Add(t0, i)
	}
	if over, _, _ := r.Add(t0, 0); !over {
		t.Fatal("flood not seen")
	}
	r.Reset()
	for i := 0; i < RateLimit; i++ {
		if over, _, _ := r.Add(t0, i); over {
			t.Fatalf("over after reset at message %d", i+1)
		}
	}
}

// TestType holds Type's switch to Types: each type is its own string (the
// slice's, not a copy), and a string one edit away from one is no type.
func TestType(t *testing.T) {
	for i, typ := range Types {
		if got := Type(strings.Clone(typ)); got != typ || unsafe.StringData(got) != unsafe.StringData(Types[i]) {
			t.Errorf("Type(%q) = %q, not Types[%d]", typ, got, i)
		}
		if !IsType(typ) {
			t.Errorf("IsType(%q) = false", typ)
		}
		for _, near := range []string{typ[:len(typ)-1], typ + "s", strings.ToUpper(typ), typ[:len(typ)-1] + "x", "x" + typ[1:]} {
			if Type(near) != "" || IsType(near) {
				t.Errorf("Type(%q) = %q, want none", near, Type(near))
			}
		}
	}
	if Type("") != "" {
		t.Error(`Type("") is a type`)
	}
}

// familyByPrefixes is Family as it was: the four prefixes tried in turn.
func familyByPrefixes(t string) string {
	for _, p := range []string{Request + ":", Event + ":", Response + ":", Notify + ":"} {
		if strings.HasPrefix(t, p) {
			return p[:len(p)-1]
		}
	}
	return ""
}

func FuzzFamily(f *testing.F) {
	for _, s := range append(Types[:len(Types):len(Types)], "", "r", "re", "res", "request", "request:", "response", "respons:", "event:", "eventx",
		"notify", "notify:", "n:", "reqest:x", "rxsponse:a", "task_notification") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Family(s), familyByPrefixes(s); got != want {
			t.Errorf("Family(%q) = %q, want %q", s, got, want)
		}
	})
}
