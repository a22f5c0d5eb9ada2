package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/lint/linter"
)

// TestJSONRPCRequestIDs: aos/3.12.1/jsonrpc-request takes a request id as
// aoplint's AOS-RPC-002 does (§3.12.1 "a String or Number(Integer) value"), by
// its text: an integer past 2^53 is an id (before, read as a float64, it was
// none), 1.5, null, true and an absent id are not. Each case is held to the
// rule itself too.
func TestJSONRPCRequestIDs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id   string // the id member's JSON ("" absent)
		want conform.Verdict
	}{
		{`9007199254740993`, conform.Pass}, // 2^53 + 1: no float64
		{`9223372036854775807`, conform.Pass},
		{`-9007199254740993`, conform.Pass},
		{`"x"`, conform.Pass},
		{`7`, conform.Pass},
		{`1.0`, conform.Pass}, // an integral number
		{`1e3`, conform.Pass},
		{`1.5`, conform.Fail},
		{`1e20`, conform.Fail}, // past int64, and no float64 integer below 2^53
		{`9223372036854775808`, conform.Fail},
		{`null`, conform.Fail},
		{`true`, conform.Fail},
		{`{}`, conform.Fail},
		{``, conform.Fail},
	} {
		body := `{"jsonrpc":"2.0","method":"ping","params":{"timestamp":"2000-01-01T00:00:00Z"}}`
		if tt.id != "" {
			body = `{"jsonrpc":"2.0","id":` + tt.id + `,"method":"ping","params":{"timestamp":"2000-01-01T00:00:00Z"}}`
		}
		s := newSession(&conform.Attempt{}).add("agent", "http", "ping", 10*time.Millisecond, body).s
		o := run(t, "aos/3.12.1/jsonrpc-request", s)
		if o.Verdict != tt.want {
			t.Errorf("id %s: %s %s (%s), want %s", tt.id, o.Verdict, o.Message, o.Actual, tt.want)
		}
		rule := false
		for _, d := range linter.LintBytes("message.json", []byte(body), linter.Options{Protocol: "aos"}).Diagnostics {
			rule = rule || d.Rule == "AOS-RPC-002"
		}
		if rule != (tt.want == conform.Fail) {
			t.Errorf("id %s: AOS-RPC-002 reported %v, the check says %s", tt.id, rule, tt.want)
		}
	}
}

// TestJSONRPCRequestIDsReused: ids are told apart by their value as sent: 2^53
// and 2^53+1 are two ids (as float64s they were one), "1" and 1 are two, 1 and
// 1.0 are one.
func TestJSONRPCRequestIDsReused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want conform.Verdict
	}{
		{`9007199254740992`, `9007199254740993`, conform.Pass},
		{`9007199254740993`, `9007199254740993`, conform.Fail},
		{`"1"`, `1`, conform.Pass},
		{`1`, `1.0`, conform.Fail},
	} {
		req := func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":{"timestamp":"2000-01-01T00:00:00Z"}}`
		}
		s := newSession(&conform.Attempt{}).
			add("agent", "http", "ping", 10*time.Millisecond, req(tt.a)).
			add("agent", "http", "ping", 20*time.Millisecond, req(tt.b)).s
		o := run(t, "aos/3.12.1/jsonrpc-request", s)
		if o.Verdict != tt.want || (o.Verdict == conform.Fail && !strings.Contains(o.Message, "reused")) {
			t.Errorf("ids %s, %s: %s %s, want %s", tt.a, tt.b, o.Verdict, o.Message, tt.want)
		}
	}
}
