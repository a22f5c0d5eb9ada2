package conform_test

import (
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/fixtures/scenarios"
)

// FuzzParseScenario: a scenario file never crashes the loader; one it accepts is
// valid and survives a round trip through JSON unchanged in meaning.
func FuzzParseScenario(f *testing.F) {
	fs.WalkDir(scenarios.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := fs.ReadFile(scenarios.FS, p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	f.Add([]byte(`{"id":"x","protocol":"aop2","deadline":"-1s","checks":[]}`))
	f.Add([]byte(`{"id":"x","protocol":"aos","deadline":"1h","task":{},"checks":["aos/2.2/content-type"],"steps":[{"do":"kill","after":"99999h"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := conform.ParseScenario("fuzz.json", data)
		if err != nil {
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted an invalid scenario: %v", err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("accepted scenario does not marshal: %v", err)
		}
		s2, err := conform.ParseScenario("again.json", b)
		if err != nil {
			t.Fatalf("round trip rejected: %v\n%s", err, b)
		}
		if s2.ID != s.ID || s2.Protocol != s.Protocol || len(s2.Checks) != len(s.Checks) || s2.Deadline != s.Deadline {
			t.Fatalf("round trip changed the scenario:\n%s", b)
		}
	})
}
