package discover

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all"
)

func TestMarker(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"package.json", `{"name":"demo","version":"1.0.0","type":"module","scripts":{"test":"node --test"}}`, ""},
		{"tsconfig.json", `{"compilerOptions":{"strict":true},"include":["src"]}`, ""},
		{"JSON Schema with protocol keys", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"jsonrpc":{"const":"2.0"}},"jsonrpc":"x"}`, ""},
		{"schema without $schema", `{"type":"object","properties":{"message_type":{"enum":["TASK"]}}}`, ""},
		{"empty", ``, ""},
		{"prose", "Release notes\n- fixed [AOP:START] parsing\n", ""},
		{"aop2", `{"aop_version":"2.0.2-C","message_type":"TASK"}`, "aop2"},
		{"aop2 without version", `{"message_type":"RESPONSE"}`, "aop2"},
		{"aos", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "aos"},
		{"aos batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "aos"},
		{"aos without jsonrpc", `{"method":"tools/call","id":3,"params":{}}`, "aos"},
		{"aof", `{"protocol":"aof","version":1,"type":"status.update"}`, "aof"},
		{"aof other protocol value", `{"protocol":"https","port":443}`, ""},
		{"aof run artifact", `{"taskId":"TASK-1","agentId":"a"}`, "aof"},
		{"aof prefixed line", "log line\nAOF/1 {\"protocol\":\"aof\"}\n", "aof"},
		{"orchmsg", `{"type":"event:log","id":"e1","timestamp":"2026-01-01T00:00:00Z"}`, "orchmsg"},
		{"orchmsg unknown type", `{"type":"request:frobnicate","id":"r1"}`, "orchmsg"},
		{"orchmsg response", `{"correlationId":"r1","id":"x"}`, "orchmsg"},
		{"type module", `{"type":"module"}`, ""},
		{"aop-output details", `{"agent_id":"a","results":[]}`, "aop-output"},
		{"aop-output report", "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] t\n", "aop-output"},
		{"transcript", `{"aopkit":"transcript/1","seq":1}` + "\n", "transcript/1"},
		{"stream with log lines first", "starting\n{\"hello\":1}\n{\"type\":\"event:progress\",\"id\":\"e\"}\n", "orchmsg"},
		{"broken message", `{"aop_version": "2.0.2-C", "message_type": "TASK",}`, "aop2"},
		{"broken package.json", `{"name": "demo",}`, ""},
		{"broken schema", `{"$schema": "x", "jsonrpc": }`, ""},
		{"BOM", "\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "aos"},
	}
	for _, tc := range cases {
		if got := Marker([]byte(tc.text)); got != tc.want {
			t.Errorf("%s: Marker = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFixturesCarryMarkers: every valid fixture of the five protocols would be
// picked up by a directory walk.
func TestFixturesCarryMarkers(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../../fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !Candidate(path) || !strings.Contains(filepath.ToSlash(path), "/valid/") {
			return err
		}
		n++
		m, err := FileMarker(path)
		if err != nil {
			return err
		}
		if m == "" {
			t.Errorf("%s: a valid fixture carries no protocol marker", path)
		}
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("walked %d valid fixtures: %v", n, err)
	}
}

// TestSchemasCarryNoMarker: aopkit's own JSON Schemas are skipped by a walk (the
// issue's 154 errors on `aoplint schemas/`).
func TestSchemasCarryNoMarker(t *testing.T) {
	files, _ := filepath.Glob("../../schemas/*/*.json")
	if len(files) < 50 {
		t.Fatalf("only %d schemas", len(files))
	}
	for _, f := range files {
		if m, err := FileMarker(f); err != nil || m != "" {
			t.Errorf("%s: marker %q (%v)", f, m, err)
		}
	}
}

func TestCandidate(t *testing.T) {
	for name, want := range map[string]bool{"a.json": true, "a.JSONL": true, "x.ndjson": true, "r.aop": true, "r.txt": true, "a.yaml": false, "a.md": false, "json": false} {
		if Candidate(name) != want {
			t.Errorf("Candidate(%q) != %v", name, want)
		}
	}
}

func TestLongHead(t *testing.T) {
	// A JSON-lines file longer than the head: the last (cut) line is not judged.
	var b strings.Builder
	for b.Len() < HeadSize+10 {
		b.WriteString(`{"hello":"world"}` + "\n")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := FileMarker(p); err != nil || m != "" {
		t.Errorf("FileMarker = %q, %v", m, err)
	}
}

// FuzzMarker: any head is judged without a panic, and a marker names a protocol
// or a transcript.
func FuzzMarker(f *testing.F) {
	f.Add([]byte(`{"aop_version":"2.0.2-C","message_type":"TASK"}`))
	f.Add([]byte("[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] t\n"))
	f.Add([]byte("x\nAOF/1 {\"protocol\":\"aof\"}\n{\"jsonrpc\":"))
	f.Add([]byte(`[{"type":"event:log"},{"$schema":"x"}]`))
	known := map[string]bool{"": true, "aop2": true, "aos": true, "aof": true, "orchmsg": true, "aop-output": true, "transcript/1": true}
	f.Fuzz(func(t *testing.T, head []byte) {
		if m := Marker(head); !known[m] {
			t.Fatalf("Marker = %q", m)
		}
	})
}
