package lintstep

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzLintTranscript: the transcript reader of the lint step never crashes on a
// transcript/1 file (the agent's lines are in it verbatim), names only lines that
// exist and says the same thing twice.
func FuzzLintTranscript(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "reference", "*", "*.jsonl"))
	for i, p := range files {
		if i%4 != 0 { // a sample of every protocol keeps the seed corpus quick
			continue
		}
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"aopkit":"transcript/1","seq":1,"at":"2026-11-22T10:00:00.000Z","from":"agent","protocol":"aop2","stream":"stdout","text":"not json"}` + "\n"))
	f.Add([]byte(`{"aopkit":"transcript/2","seq":1}` + "\n" + `{"aopkit":"transcript/1","from":"harness","event":"scenario-end"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := AOPLint{}.LintTranscript("fuzz.jsonl", bytes.NewReader(data))
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, d := range ds {
			if d.Line < 0 || d.Line > lines {
				t.Fatalf("diagnostic on line %d of %d: %+v", d.Line, lines, d)
			}
		}
		again, _ := AOPLint{}.LintTranscript("fuzz.jsonl", bytes.NewReader(data))
		if !reflect.DeepEqual(ds, again) {
			t.Fatalf("two readings differ:\n%v\n%v", ds, again)
		}
	})
}
