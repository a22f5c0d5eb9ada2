package orchmsg

import (
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// FuzzFactsRead: the group's one pass over a message's members finds what
// root.Get finds for each key the facts read (the last of a repeated key,
// nothing in a non-object).
func FuzzFactsRead(f *testing.F) {
	for _, s := range []string{
		`{"type":"request:get-task","id":"req-1","timestamp":"2026-02-04T14:30:00Z","agentId":"a","payload":{"taskId":"t"}}`,
		`{"type":"response:success","id":"res-2","correlationId":"req-1","timestamp":"x","payload":{}}`,
		`{"id":1,"id":"evt-3","type":null,"type":"event:log","correlationId":"a","correlationId":2,"":"e"}`,
		`["type","id"]`, `"id"`, `{}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, _, err := jsonread.Parse(data)
		if err != nil || root == nil {
			return
		}
		var got msgFacts
		got.read(root)
		for _, c := range []struct {
			key string
			n   *jsonread.Node
		}{{"id", got.idN}, {"type", got.typN}, {"correlationId", got.cidN}, {"timestamp", got.tsN}} {
			if want := root.Get(c.key); c.n != want {
				t.Errorf("%s: the pass found %p, Get %p", c.key, c.n, want)
			}
		}
	})
}
