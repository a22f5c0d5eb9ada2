package aos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
)

func parse(t *testing.T, s string) *jsonread.Node {
	t.Helper()
	n, _, err := jsonread.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return n
}

func TestDetect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, kind, dialect string
		claimed           bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`, "ping", "", true},
		{`{"id":1,"method":"steps/message","params":{}}`, "steps/message", DialectNoJSONRPC, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, "", DialectRawMCP, true},
		{`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{}}}`, "", DialectRawA2A, true},
		{`{"jsonrpc":"2.0","id":1,"method":"task/get","params":{"payload":{},"context":{}}}`, "", DialectOWASPA2A, true},
		{`{"jsonrpc":"2.0","id":1,"method":"whatever"}`, "", "", true},
		{`{"id":1,"method":"whatever"}`, "", "", false},
		{`{"jsonrpc":"2.0","id":1,"result":{"decision":"allow","message":"ok"}}`, KindResponse, "", true},
		{`{"jsonrpc":"2.0","id":1,"result":{"status":"connected","version":"0.1.0","timestamp":"x"}}`, KindPingResponse, "", true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, KindError, "", true},
		{`{"id":"x","result":{"decision":"deny"}}`, KindResponse, "", true},
		{`{"type":"response:error","id":"res-1","correlationId":"req-1","error":{"code":"X"}}`, "", "", false},
		{`{"aop_version":"2.0.2-C","message_type":"RESPONSE","id":"x","result":{}}`, "", "", false},
		{`{"protocol":"aof","version":1,"type":"status.update"}`, "", "", false},
		{`{"executed":{"executionId":"e1","name":"t","arguments":{}}}`, KindExecuted, "", true},
		{`{"task":"do it","tools":[]}`, KindScript, "", true},
		{`{"task":"do it","task_type":"search"}`, "", "", false},
		{`[1,2]`, "", "", false},
		{`[]`, "", "", false},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{}},{"jsonrpc":"2.0","id":2,"method":"steps/message","params":{}}]`, KindBatch, "", true},
		{`[{"jsonrpc":"2.0","id":1,"result":{"decision":"allow"}}]`, KindBatch, "", true},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{}},2]`, "", "", false},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping","params":{}},{"type":"event:log","id":"evt-1"}]`, "", "", false},
		{`[{"executed":{"executionId":"e1","name":"t","arguments":{}}}]`, "", "", false},
	}
	for _, c := range cases {
		kind, dialect, conf := Detect(parse(t, c.in), "")
		if (conf > 0) != c.claimed || kind != c.kind || dialect != c.dialect {
			t.Errorf("Detect(%s) = %q, %q, %d; want kind %q dialect %q claimed %v", c.in, kind, dialect, conf, c.kind, c.dialect, c.claimed)
		}
	}
}

func TestBase64Problem(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"aGVsbG8gd29ybGQh": "",
		"aGVsbG8":          "lack the = padding",
		"-_-_":             "use the URL-safe alphabet (- and _)",
		"aGVs bG8=":        "contain whitespace or line breaks",
		"hello world!":     `("hello world!") are not valid base64`,
		"":                 "",
	}
	for in, want := range cases {
		if got := base64Problem(in); got != want {
			t.Errorf("base64Problem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestISOProblem(t *testing.T) {
	t.Parallel()
	ok := []string{"2025-01-24T15:30:45.123Z", "2025-01-24T15:30:45Z", "2025-01-24T15:30:45+02:00", "2025-01-24T15:30", "2025-01-24 15:30:45", "2016-12-31T23:59:60Z"}
	bad := []string{"24/01/2025 15:30", "2025-02-30T10:00:00Z", "2025-01-24", "1737732645", "2025-01-24T25:00:00Z", ""}
	for _, s := range ok {
		if p := isoProblem(s); p != "" {
			t.Errorf("isoProblem(%q) = %q, want valid", s, p)
		}
	}
	for _, s := range bad {
		if isoProblem(s) == "" {
			t.Errorf("isoProblem(%q) accepted an invalid timestamp", s)
		}
	}
}

// TestCheckerStateIsBounded drives one checker with many more tool calls than
// MaxTracked and checks its tables stay within the bound.
func TestCheckerStateIsBounded(t *testing.T) {
	t.Parallel()
	c := SeqDuplicateExecution.NewChecker().(*checker)
	n := MaxTracked*2 + 10
	for i := 0; i < n; i++ {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"steps/toolCallRequest","params":{"context":{"session":{"id":"s"},"turnId":"t","stepId":"st%d"},"toolCallRequest":{"executionId":"e%d","toolId":"x","inputs":[]}}}`, i, i, i)
		m := &lint.Message{Protocol: ID, Kind: "steps/toolCallRequest", Root: parse(t, req), Raw: []byte(req), Pos: lint.NewLineIndex([]byte(req), i+1, 1)}
		p := lint.NewPass(SeqDuplicateExecution, m)
		c.Observe(p)
		for _, d := range p.Diagnostics() {
			if d.Severity != lint.Info {
				t.Fatalf("unexpected finding at %d: %s", i, d.Message)
			}
		}
	}
	st := c.st
	for name, size := range map[string]int{"open": st.open.Len(), "done": st.done.Len(), "tools": st.tools.Len(), "steps": st.steps.Len()} {
		if size > MaxTracked {
			t.Errorf("%s holds %d entries, more than %d", name, size, MaxTracked)
		}
	}
}

func TestModifiedRequestFindingsPointIntoTheResponse(t *testing.T) {
	t.Parallel()
	src := `{"jsonrpc":"2.0","id":1,"result":{"decision":"modify","message":"m","modifiedRequest":{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}}}`
	m := &lint.Message{Protocol: ID, Kind: KindResponse, Root: parse(t, src), Raw: []byte(src), Pos: lint.NewLineIndex([]byte(src), 1, 1)}
	p := lint.NewPass(ResultModifiedRequest, m)
	ResultModifiedRequest.Run(p)
	ds := p.Diagnostics()
	if len(ds) != 1 || ds[0].Pointer != "/result/modifiedRequest/params/timestamp" || !strings.Contains(ds[0].Message, "timestamp") {
		t.Fatalf("got %+v", ds)
	}
}

func TestPreciseSchemaErrors(t *testing.T) {
	t.Parallel()
	e := func(ptr, typ string) schema.Error {
		return schema.Error{Pointer: ptr, Type: typ, Message: typ + "@" + ptr}
	}
	cases := []struct {
		name string
		in   []schema.Error
		want []string
	}{
		{"required explains then and allOf",
			[]schema.Error{e("/params/citation/1", "condition_then"), e("/params/citation/1", "number_all_of"), e("/params/citation/1/url", "required")},
			[]string{"required@/params/citation/1/url"}},
		{"then explains allOf when alone",
			[]schema.Error{e("/params/citation/1", "condition_then"), e("/params/citation/1", "number_all_of")},
			[]string{"condition_then@/params/citation/1"}},
		{"a summary alone stays",
			[]schema.Error{e("/params/content/0", "number_all_of")},
			[]string{"number_all_of@/params/content/0"}},
		{"an error elsewhere explains nothing",
			[]schema.Error{e("/params/citation/0", "number_all_of"), e("/params/citation/1/url", "required"), e("/params/citation/10", "condition_then")},
			[]string{"number_all_of@/params/citation/0", "required@/params/citation/1/url", "condition_then@/params/citation/10"}},
		{"the root summary", []schema.Error{e("", "number_all_of"), e("/id", "invalid_type")}, []string{"invalid_type@/id"}},
	}
	for _, c := range cases {
		var got []string
		for _, x := range preciseSchemaErrors(c.in) {
			got = append(got, x.Message)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestSeqGroupReportsPerRule drives the one shared checker of the AOS sequence
// rules through a stream with findings of three rules: each is reported once,
// under its own rule and severity, with witnesses whose texts name the request.
func TestSeqGroupReportsPerRule(t *testing.T) {
	t.Parallel()
	for _, r := range seqRules {
		if r.Group != seqGroup {
			t.Errorf("%s is not in group %q", r.ID, seqGroup)
		}
	}
	lines := []string{
		`{"jsonrpc":"2.0","id":"r1","method":"ping","params":{"timestamp":"2025-01-24T15:30:45.123Z","timeout":500}}`,
		`{"jsonrpc":"2.0","id":"r1","result":{"status":"connected","version":"0.1.0","timestamp":"2025-01-24T15:30:45.200Z"}}`,
		`{"jsonrpc":"2.0","id":"r1","result":{"status":"connected","version":"0.1.0","timestamp":"2025-01-24T15:30:45.300Z"}}`,
		`{"jsonrpc":"2.0","id":"r2","method":"ping","params":{"timestamp":"2025-01-24T15:30:46.123Z"}}`,
		`{"jsonrpc":"2.0","id":"r9","result":{"status":"connected","version":"0.1.0","timestamp":"2025-01-24T15:30:46.200Z"}}`,
	}
	c := newChecker()
	var got []string
	for i, l := range lines {
		m := &lint.Message{Protocol: ID, Kind: KindPingResponse, Root: parse(t, l), Raw: []byte(l), Pos: lint.NewLineIndex([]byte(l), i+1, 1)}
		if strings.Contains(l, "method") {
			m.Kind = "ping"
		}
		p := lint.NewPass(SeqUnknownResponse, m)
		c.Observe(p)
		for _, d := range p.Diagnostics() {
			got = append(got, fmt.Sprintf("%d %s %s %v", d.Line, d.Rule, d.Severity, d.Related))
		}
	}
	p := lint.NewPass(SeqUnknownResponse, nil)
	c.Finish(p)
	for _, d := range p.Diagnostics() {
		got = append(got, fmt.Sprintf("%d %s %s %v", d.Line, d.Rule, d.Severity, d.Related))
	}
	want := []string{
		`3 AOS-SEQ-002 error [{ 1 23 /id the ping request "r1"} { 2 23 /id the response to "r1"}]`,
		`5 AOS-SEQ-001 error []`,
		`4 AOS-SEQ-003 warning []`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
