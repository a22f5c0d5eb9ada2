package harness

import (
	"path/filepath"
	"sync"

	"github.com/aopkit/aopkit/conform"
)

// Refused returns the function an engine calls when it refused to read a file
// the agent controls (safefile: not a regular file, too large, a link leading
// out of its directory): it records the harness event conform.EventFileRefused,
// once per file and reason, with the path relative to the scratch directory, in
// the attempt attempt() names. The agent is judged for it by
// checks.RegularFilesID; the harness goes on without the file.
func (h *H) Refused(attempt func() int) func(path, reason string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(path, reason string) {
		if rel, err := filepath.Rel(h.scratch, path); err == nil && filepath.IsLocal(rel) {
			path = filepath.ToSlash(rel)
		}
		mu.Lock()
		key := path + "\x00" + reason
		first := !seen[key]
		seen[key] = true
		mu.Unlock()
		if first {
			h.rec.event(attempt(), conform.EventFileRefused, conform.Details(conform.KeyFile.Is(path), conform.KeyReason.Is(reason)))
		}
	}
}
