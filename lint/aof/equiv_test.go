package aof

import (
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

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
