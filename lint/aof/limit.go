package aof

import (
	"fmt"

	spec "github.com/aopkit/aopkit/lint/spec/aof"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Limits reports the upstream implementation's size limits.
var Limits = ruleDocs.Rule(lint.Rule{ID: "AOF-LIMIT-001", Protocol: "aof", Severity: lint.Warning, Run: checkLimits})

var limitRules = []*lint.Rule{Limits}

const maxMessageBytes = spec.MaxMessage

var stringLimits = []struct {
	field string
	max   int
}{{"summaryRef", spec.MaxSummaryRef}, {"handoffRef", spec.MaxSummaryRef}, {"notes", spec.MaxNotes}, {"progress", spec.MaxProgress}, {"reason", spec.MaxReason}}

// listLimit is the upstream limit of items of a payload list member (false for
// a member that has none): a switch, not a map hashed for every member.
func listLimit(key string) (int, bool) {
	switch key {
	case "blockers":
		return spec.MaxBlockers, true
	case "deliverables", "acceptanceCriteria", "expectedOutputs", "contextRefs", "constraints":
		return spec.MaxListItems, true
	}
	return 0, false
}

func checkLimits(p *lint.Pass) {
	if len(p.Msg.Raw) > maxMessageBytes {
		p.Reportf("", "the message is %d bytes, over the upstream limit of 10 MiB (%d bytes): an upstream router rejects it", len(p.Msg.Raw), maxMessageBytes)
	}
	base := payloadBase(p.Msg.Kind)
	obj := p.Member(base)
	if obj == nil || obj.Kind != jsonread.Object {
		return
	}
	for _, sl := range stringLimits {
		// (jsLen is at most the byte length: a string no longer than the
		// limit in bytes is not counted.)
		if n := obj.Get(sl.field); n.IsString() && len(n.Str) > sl.max {
			if l := spec.Length(n.Str); l > sl.max {
				p.Reportf(base+"/"+sl.field, "%s is %d characters, over the upstream limit of %s: an upstream router rejects the message as invalid_envelope", sl.field, l, thousands(sl.max))
			}
		}
	}
	for _, m := range obj.Members {
		max, ok := listLimit(m.Key)
		if !ok || m.Value.Kind != jsonread.Array {
			continue
		}
		if len(m.Value.Items) > max {
			p.Reportf(base+"/"+m.Key, "%s has %d items, over the upstream limit of %d: an upstream router rejects the message as invalid_envelope", m.Key, len(m.Value.Items), max)
		}
		for i, it := range m.Value.Items {
			if it.IsString() && len(it.Str) > spec.MaxItem {
				if l := spec.Length(it.Str); l > spec.MaxItem {
					p.Reportf(fmt.Sprintf("%s/%s/%d", base, m.Key, i), "%s[%d] is %d characters, over the upstream limit of %d per item: an upstream router rejects the message as invalid_envelope", m.Key, i, l, spec.MaxItem)
				}
			}
		}
	}
}

func thousands(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d,%03d", n/1000, n%1000)
}
