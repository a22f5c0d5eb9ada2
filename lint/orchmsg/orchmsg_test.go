package orchmsg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, kind, dialect string
		min, max          int
	}{
		{`{"type":"request:get-task","id":"x","timestamp":"t","payload":{}}`, "request:get-task", "", 90, 90},
		{`{"type":"request:invalid-type","id":"x"}`, "", "", 70, 70},
		{`{"type":"task_notification","taskId":"task-1"}`, "", DialectTaskNotification, 80, 80},
		{`{"type":"code-analysis","name":"Analyze"}`, "", DialectTaskDefinition, 20, 20},
		// A JSON Schema document's "type" is no message type (issue 30 item 7).
		{`{"type":"object","properties":{}}`, "", "", 0, 0},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"event:log"}`, "", "", 0, 0},
		{`{"type":"object","message":"hi"}`, "", "", 1, 10},
		{`{"id":"res-1","correlationId":"req-1"}`, "", "", 15, 15},
		{`{"hello":"world"}`, "", "", 0, 0},
		{`[{"type":"event:log"}]`, "", "", 0, 0},
		{`{"type":7}`, "", "", 1, 10},
	} {
		root, _, err := jsonread.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		k, d, c := Detect(root, "")
		if k != tc.kind || d != tc.dialect || c < tc.min || c > tc.max {
			t.Errorf("Detect(%s) = %q, %q, %d; want %q, %q, %d..%d", tc.in, k, d, c, tc.kind, tc.dialect, tc.min, tc.max)
		}
	}
}

func TestWindowBound(t *testing.T) {
	t.Parallel()
	w := newWindow(3, &windowPool[int]{})
	dropped := false
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		dropped = w.put(k, i) || dropped
	}
	if w.len() != 3 || !dropped {
		t.Fatalf("len %d dropped %v; want 3 true", w.len(), dropped)
	}
	if _, ok := w.get("a"); ok {
		t.Error("oldest entry kept")
	}
	if v, ok := w.get("e"); !ok || v != 4 {
		t.Error("newest entry lost")
	}
	// deleted entries free their place; the queue compacts
	for i := 0; i < 10000; i++ {
		k := string(rune('A' + i%26))
		w.put(k, i)
		w.del(k)
	}
	if len(w.b.q.order)-w.b.q.head > 2100 {
		t.Errorf("queue not compacted: %d entries", len(w.b.q.order)-w.b.q.head)
	}
}

func TestSchemaFile(t *testing.T) {
	t.Parallel()
	if got := SchemaFile("request:query-agents"); got != "orchmsg/request-query-agents.schema.json" {
		t.Errorf("SchemaFile = %q", got)
	}
	if got := SchemaFile("request:nope"); got != "" {
		t.Errorf("SchemaFile(unknown) = %q", got)
	}
}

// TestWindowRelease: a released window is empty, and a window that takes its
// buffers from the pool starts empty too (nothing of the last session stays).
func TestWindowRelease(t *testing.T) {
	pool := &windowPool[int]{}
	w := newWindow(8, pool)
	w.put("a", 1)
	w.put("b", 2)
	w.release()
	if w.len() != 0 {
		t.Fatalf("released window holds %d entries", w.len())
	}
	if _, ok := w.get("a"); ok {
		t.Error("released window still finds a")
	}
	w2 := newWindow(8, pool)
	w2.put("c", 3)
	if _, ok := w2.get("a"); ok || w2.len() != 1 {
		t.Errorf("a window from the pool holds old entries (len %d)", w2.len())
	}
	w.put("d", 4) // a window used after release takes new buffers
	if v, ok := w.get("d"); !ok || v != 4 {
		t.Error("put after release lost")
	}
}

// TestIDWindowsAgree: windows sharing an id table hold, drop and find what
// windows of their own (window) do, under the same puts and deletes: random
// operations over few keys and small bounds, so that the queues drop, re-queue
// and compact.
func TestIDWindowsAgree(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	// The ids "id-0" to "id-61", made once (not at each op) in two copies: the
	// table's cache knows an id by its bytes' address first, then by its value,
	// and the ops use one copy or the other, so that both ways are taken.
	var keys [2][62]string
	for c := range keys {
		for n := range keys[c] {
			keys[c][n] = fmt.Sprint("id-", n)
		}
	}
	for round := range 60 {
		var tab idTable
		maxes := []int{1 + r.IntN(4), 1 + r.IntN(4), 2 + r.IntN(40)}
		shared := make([]*idWindow[mark], len(maxes))
		own := make([]*window[mark], len(maxes))
		for i, max := range maxes {
			bit := uint8([]int{idReqs, idSeen, idAnswered}[i])
			shared[i] = newIDWindow(&tab, bit, max, []func(*idSlot) *mark{
				func(s *idSlot) *mark { return &s.reqs }, slotSeen, slotAnswered}[i])
			own[i] = newWindow(max, &windowPool[mark]{})
		}
		nkeys := 2 + r.IntN(60)
		for op := range 2000 {
			i := r.IntN(len(maxes))
			k := keys[op%2][r.IntN(nkeys)]
			switch r.IntN(3) {
			case 0, 1:
				v := mark{line: int32(op), id: k}
				if a, b := shared[i].put(k, v), own[i].put(k, v); a != b {
					t.Fatalf("round %d op %d: put(%s) in window %d dropped %v, want %v", round, op, k, i, a, b)
				}
			case 2:
				shared[i].del(k)
				own[i].del(k)
			}
			for j := range maxes {
				if a, b := shared[j].len(), own[j].len(); a != b {
					t.Fatalf("round %d op %d: window %d holds %d, want %d", round, op, j, a, b)
				}
			}
			if r.IntN(4) == 0 {
				tab.forget() // as after a message; between, the cache of found ids serves
			}
			for n := range nkeys {
				k := keys[(op+n)%2][n]
				a, aok := shared[i].get(k)
				b, bok := own[i].get(k)
				if a != b || aok != bok {
					t.Fatalf("round %d op %d: window %d get(%s) = %v %v, want %v %v", round, op, i, k, a, aok, b, bok)
				}
			}
		}
		for i := range maxes {
			shared[i].release()
		}
		if tab.b != nil {
			t.Fatal("table not released with its windows")
		}
	}
}

// TestSchemaFileTable: SchemaFile's table answers as schemaFileOf for every
// type and for strings that are none.
func TestSchemaFileTable(t *testing.T) {
	for _, k := range append(append([]string(nil), Types...), "", "task_notification", "request:nope", "event:log ", "control") {
		if got, want := SchemaFile(k), schemaFileOf(k); got != want {
			t.Errorf("SchemaFile(%q) = %q, want %q", k, got, want)
		}
	}
}
