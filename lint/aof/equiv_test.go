package aof

import (
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// slowDateTime is parseDateTime as it was: time.Parse of the normalised string
// for every form.
func slowDateTime(s string) (time.Time, zoneKind, bool) {
	m, ok := datetimeForm.Match(s)
	if !ok {
		return time.Time{}, 0, false
	}
	return parseDateTimeSlow(m)
}

func agree(t *testing.T, s string) {
	got, gz, gok := parseDateTime(s)
	want, wz, wok := slowDateTime(s)
	if gok != wok || gz != wz || !got.Equal(want) || got.Location().String() != want.Location().String() {
		t.Errorf("parseDateTime(%q) = %v, %v, %v; time.Parse says %v, %v, %v", s, got, gz, gok, want, wz, wok)
	}
}

var dateTimeSeeds = []string{
	"2026-02-04T14:30:00Z", "2026-02-04T14:30:00.123Z", "2026-02-04t14:30z", "2026-02-04T14:30", "2024-02-29T00:00:00Z",
	"2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T23:59:59.999999999Z", "2026-04-31T10:00:00Z",
	"2026-13-01T10:00:00Z", "2026-00-01T10:00:00Z", "2026-01-00T10:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
	"2026-01-01T23:59:60Z", "2026-01-01T10:00:00,5Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.1", "2026-01-01T10:00:00+02:00",
	"2026-01-01T10:00:00-0530", "2026-01-01T10:00:00+25:00", "2026-01-01T10:00:00+02", "2026-01-01 10:00:00Z", "nope", "",
}

// FuzzParseDateTime: the digit path answers as time.Parse does.
func FuzzParseDateTime(f *testing.F) {
	for _, s := range dateTimeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { agree(t, s) })
}

// kindFromShapeByGet is kindFromShape as it was (now membersOf and shapeKind), by a Get per member name: the
// oracle of the one-pass version.
func kindFromShapeByGet(root *jsonread.Node) string {
	if root.Get("protocol") != nil || root.Get("type") != nil || root.Get("payload") != nil {
		return ""
	}
	shapeKeys := []struct {
		kind string
		keys []string
	}{
		{KindHeartbeat, []string{"lastHeartbeat", "beatCount", "expiresAt"}},
		{KindRunResult, []string{"completedAt", "outcome", "summaryRef", "handoffRef", "tests"}},
		{KindRun, []string{"startedAt", "artifactPaths"}},
		{KindHandoffInput, []string{"parentTaskId", "dueBy", "acceptanceCriteria", "expectedOutputs", "contextRefs", "constraints"}},
	}
	best, bestN := "", 0
	for _, sh := range shapeKeys {
		n := 0
		for _, k := range sh.keys {
			if root.Get(k) != nil {
				n++
			}
		}
		if n > bestN {
			best, bestN = sh.kind, n
		}
	}
	if tid := root.Get("taskId"); tid.IsString() && strings.HasPrefix(tid.Str, "TASK-") || root.Get("agentId") != nil {
		if bestN >= 1 {
			return best
		}
		return ""
	}
	if bestN >= 2 {
		return best
	}
	return ""
}

var shapeSeeds = []string{
	`{"taskId":"TASK-1","lastHeartbeat":"x"}`, `{"beatCount":1,"expiresAt":2}`, `{"completedAt":1,"outcome":2,"startedAt":3}`,
	`{"startedAt":1,"artifactPaths":[],"outcome":1,"tests":1}`, `{"taskId":1,"taskId":"TASK-2","dueBy":1}`, `{"taskId":"TASK-2","taskId":1,"dueBy":1}`,
	`{"agentId":"a","constraints":[]}`, `{"type":"x","startedAt":1,"artifactPaths":1}`, `{"outcome":1,"outcome":2}`, `{}`,
	`{"parentTaskId":1,"dueBy":2,"lastHeartbeat":1,"beatCount":2,"expiresAt":3}`, `{"payload":1}`,
	`{"protocol":"aof","type":"status.update","payload":{},"taskId":"TASK-1","projectId":"p"}`, `{"protocol":"x","type":"handoff.request","payload":1}`,
	`{"type":"completion.report","payload":{},"taskId":"t"}`, `{"type":"completion.report","payload":{},"taskId":"t","protocol":null}`,
	`{"agentId":"a"}`, `{"taskId":"TASK-9","type":"status.update","type":1}`, `{"protocol":"aof","protocol":"x","type":"status.update","payload":1}`,
}

func shapesAgree(t *testing.T, data []byte) {
	root, _, err := jsonread.Parse(data)
	if err != nil || root.Kind != jsonread.Object {
		return
	}
	f := membersOf(root)
	if got, want := f.shapeKind(), kindFromShapeByGet(root); got != want {
		t.Errorf("shapeKind(%s) = %q, by Get %q", data, got, want)
	}
	for _, name := range []string{"", "run.json", "d/run_result.json", "inputs/handoff.json", "x/handoff.json"} {
		k, d, c := Detect(root, name)
		wk, wd, wc := detectByGet(root, name)
		if k != wk || d != wd || c != wc {
			t.Errorf("Detect(%s, %q) = %q, %q, %d; by Get %q, %q, %d", data, name, k, d, c, wk, wd, wc)
		}
	}
}

// detectByGet is Detect as it was, by a Get per member it reads: the oracle of
// the one-pass version (membersOf).
func detectByGet(root *jsonread.Node, name string) (kind, dialect string, confidence int) {
	env := envelopeKind(root.Get("type").String())
	if p := root.Get("protocol"); p != nil {
		if p.String() == "aof" {
			return env, upstreamDialect(root), 100
		}
		if env != "" && root.Get("payload") != nil {
			return env, upstreamDialect(root), 40
		}
	}
	if name != "" {
		if k := kindFromName(name); k != "" {
			if root.Get("taskId") != nil || root.Get("agentId") != nil {
				return k, "", 95
			}
			return k, "", 30
		}
	}
	if k := kindFromShapeByGet(root); k != "" {
		return k, "", 80
	}
	if root.Get("protocol") == nil && env != "" && root.Get("payload") != nil && root.Get("taskId") != nil {
		return env, upstreamDialect(root), 60 // an envelope that forgot "protocol"
	}
	return "", "", 0
}

func FuzzKindFromShape(f *testing.F) {
	for _, s := range shapeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(shapesAgree)
}
