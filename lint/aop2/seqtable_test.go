package aop2

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/seqgroup"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// refTable is the map-only table the slice-then-map one replaced, kept as the
// reference of TestTableAgrees (without the cap, which TestStateIsBounded
// covers: tables here stay far below maxTracked).
type refTable struct {
	m     map[string]*int
	order []string
}

func (t *refTable) add(k string) *int {
	if t.m == nil {
		t.m = map[string]*int{}
	}
	if v, ok := t.m[k]; ok {
		return v
	}
	v := new(int)
	t.m[k] = v
	t.order = append(t.order, k)
	return v
}

func (t *refTable) del(k string) { delete(t.m, k) }

func (t *refTable) each(f func(k string, v *int)) {
	seen := map[string]bool{}
	for _, k := range t.order {
		if v, ok := t.m[k]; ok && !seen[k] {
			seen[k] = true
			f(k, v)
		}
	}
}

// TestTableAgrees: random adds, deletes, lookups, visits and resets give what
// the map-only table gave, through the move from the slice to a map (and keys
// equal but not interned).
func TestTableAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	keys := make([]string, 3*seqgroup.SmallKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("S\x00T-%02d", i)
	}
	key := func() string {
		k := keys[rng.Intn(len(keys))]
		if rng.Intn(4) == 0 {
			k = strings.Clone(k) // equal, at another address
		}
		return k
	}
	var got table[int]
	var want refTable
	for step := 0; step < 20000; step++ {
		switch op := rng.Intn(10); {
		case op < 4:
			k, v := key(), rng.Int()
			*got.put(k) = v
			*want.add(k) = v
		case op < 7:
			k := key()
			got.del(k)
			want.del(k)
		case op < 9:
			k := key()
			g, w := got.get(k), want.m[k]
			if (g == nil) != (w == nil) || (g != nil && *g != *w) {
				t.Fatalf("step %d: get(%q) differs", step, k)
			}
		case step%50 == 0:
			got.reset()
			want = refTable{}
		default:
			var gs, ws []string
			got.each(func(k string, v *int) { gs = append(gs, fmt.Sprint(k, *v)) })
			want.each(func(k string, v *int) { ws = append(ws, fmt.Sprint(k, *v)) })
			if fmt.Sprint(gs) != fmt.Sprint(ws) {
				t.Fatalf("step %d: each visits %v, want %v", step, gs, ws)
			}
		}
		if got.len() != len(want.m) {
			t.Fatalf("step %d: len %d, want %d", step, got.len(), len(want.m))
		}
	}
}

// TestTableUpkeepIsLinear: whatever the pattern of a session's tasks, the
// table's upkeep of its order (dropping the oldest past maxTracked, compacting
// deleted keys, moving the queue to the front) goes over a few keys per add, so
// a session of many tasks costs each message the same: a session of 300k
// TASKs is linted in linear time. It counts work rather than timing it.
func TestTableUpkeepIsLinear(t *testing.T) {
	const n = 40 * maxTracked
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("S\x00T-%07d", i)
	}
	patterns := []struct {
		name string
		step func(tb *table[int], i int)
	}{
		// every TASK a new task_id and no RESPONSE: the cap drops the oldest
		{"distinct, never answered", func(tb *table[int], i int) { *tb.put(keys[i]) = i }},
		// each answered at once: the order keeps keys deleted since
		{"answered at once", func(tb *table[int], i int) { *tb.put(keys[i]) = i; tb.del(keys[i]) }},
		// one task_id sent again and again (a retry), answered each time
		{"one retried", func(tb *table[int], i int) { *tb.put(keys[0]) = i; tb.del(keys[0]) }},
		// half of the tasks answered, late: the table stays full of the rest
		{"half answered late", func(tb *table[int], i int) {
			*tb.put(keys[i]) = i
			if i%2 == 1 && i > 100 {
				tb.del(keys[i-101])
			}
		}},
		// a window of open tasks, each answered maxTracked/2 TASKs later
		{"window", func(tb *table[int], i int) {
			*tb.put(keys[i]) = i
			if i >= maxTracked/2 {
				tb.del(keys[i-maxTracked/2])
			}
		}},
	}
	for _, pt := range patterns {
		var tb table[int]
		for i := 0; i < n; i++ {
			pt.step(&tb, i)
		}
		if tb.len() > maxTracked {
			t.Errorf("%s: %d tasks kept, more than %d", pt.name, tb.len(), maxTracked)
		}
		if per := float64(tb.upkeep) / n; per > 4 {
			t.Errorf("%s: the upkeep went over %d keys for %d adds (%.1f each): not linear", pt.name, tb.upkeep, n, per)
		}
		if c := cap(tb.order); c > 8*maxTracked {
			t.Errorf("%s: the order grew to %d keys", pt.name, c)
		}
	}
}

// TestSequenceUpkeepIsLinear runs the sequence group over long sessions of
// TASKs (one task_id again and again, with and without RESPONSEs; none; a new
// one each) and requires every table of every checker to have gone over a few
// keys of its order per message (table.upkeep): a session of 300k such TASKs
// is linted in linear time. It counts work rather than timing it.
func TestSequenceUpkeepIsLinear(t *testing.T) {
	const n = 6 * maxTracked
	task := func(id string) string {
		idm := ""
		if id != "" {
			idm = `"task_id":"` + id + `",`
		}
		return `{"aop_version":"2.0.2-C","protocol_family":"AOP","message_type":"TASK","session":{"session_id":"S","created_at":"2026-02-26T14:00:00Z"},` +
			`"task":{` + idm + `"objective":"o"},"execution_policy":{"timeout_seconds":60,"heartbeat":{"enabled":true,"interval_seconds":10}},"budgets":{"max_tokens":10}}`
	}
	const resp = `{"aop_version":"2.0.2-C","message_type":"RESPONSE","session_id":"S","task_id":"T","task_status":{"state":"COMPLETED","final_signal":"SUCCESS"}}`
	for _, c := range []struct {
		name string
		line func(i int) string
	}{
		{"one task_id", func(int) string { return task("T") }},
		{"one task_id, answered", func(i int) string {
			if i%2 == 1 {
				return resp
			}
			return task("T")
		}},
		{"no task_id", func(int) string { return task("") }},
		{"a new task_id each", func(i int) string { return task(fmt.Sprintf("T-%d", i)) }},
	} {
		g := newGroupChecker().(*groupChecker)
		var p lint.Pass
		memo := map[string]*jsonread.Node{}
		for i := 0; i < n; i++ {
			line := c.line(i)
			root := memo[line]
			if root == nil {
				var err error
				if root, _, err = jsonread.Parse([]byte(line)); err != nil {
					t.Fatal(err)
				}
				if len(memo) < 4 {
					memo[line] = root
				}
			}
			kind, _, _ := Detect(root, "")
			m := &lint.Message{Path: "s.jsonl", Protocol: ID, Kind: kind, Root: root, Raw: []byte(line), Pos: lint.NewLineIndex([]byte(line), i+1, 1)}
			p.Reset(SeqCorrelation, m)
			g.Observe(&p)
		}
		tables := 0
		for _, mb := range g.members {
			var ck any = mb.c
			if tr, ok := ck.(taskReplies); ok {
				ck = tr.c
			}
			tableUpkeep(reflect.ValueOf(ck).Elem(), func(field string, upkeep int64) {
				tables++
				if upkeep > 4*n {
					t.Errorf("%s: %T.%s went over %d keys of its order for %d messages: not linear", c.name, ck, field, upkeep, n)
				}
			})
		}
		if tables < len(g.members) {
			t.Fatalf("%d tables found in %d checkers", tables, len(g.members))
		}
		p.Reset(SeqCorrelation, nil)
		g.Finish(&p)
	}
}

// tableUpkeep calls f with the upkeep of each table among v's fields.
func tableUpkeep(v reflect.Value, f func(field string, upkeep int64)) {
	for i := 0; i < v.NumField(); i++ {
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && strings.HasPrefix(fv.Type().Name(), "table[") {
			f(v.Type().Field(i).Name, fv.FieldByName("upkeep").Int())
		}
	}
}

// TestGroupMembers: memberCount is the number of groupRules with a checker and
// of the checkers (viewCheckers and taskRepliers) among the fields of
// checkerSet, each of which one rule's is.
func TestGroupMembers(t *testing.T) {
	n := 0
	var ms checkerSet
	seen := map[viewChecker]bool{}
	for _, r := range groupRules {
		if r.of != nil {
			n++
			seen[r.of(&ms)] = true
		}
	}
	fields := 0 // the checkers among checkerSet's fields
	vc, tr := reflect.TypeFor[viewChecker](), reflect.TypeFor[taskReplier]()
	for f := range reflect.TypeOf(ms).Fields() {
		if pt := reflect.PointerTo(f.Type); pt.Implements(vc) || pt.Implements(tr) {
			fields++
		}
	}
	if n != memberCount || fields != memberCount || len(seen) != memberCount {
		t.Errorf("memberCount %d: %d rules have a checker, checkerSet has %d checkers, %d of them are a rule's", memberCount, n, fields, len(seen))
	}
}
