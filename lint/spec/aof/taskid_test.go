package aof

import (
	"regexp"
	"testing"
)

// The task id patterns as the guide and the upstream implementation write them;
// ValidTaskID and UpstreamTaskID check them byte by byte and must agree.
var (
	taskIDPattern         = regexp.MustCompile(`^TASK-\d{4}-\d{2}-\d{2}-\d{3}$`)
	upstreamTaskIDPattern = regexp.MustCompile(`^TASK-\d{4}-\d{2}-\d{2}-\d{3}-\d{2}$`)
)

func agreeTaskID(t *testing.T, id string) {
	if got, want := ValidTaskID(id), taskIDPattern.MatchString(id); got != want {
		t.Errorf("ValidTaskID(%q) = %v, the regexp says %v", id, got, want)
	}
	if got, want := UpstreamTaskID(id), upstreamTaskIDPattern.MatchString(id); got != want {
		t.Errorf("UpstreamTaskID(%q) = %v, the regexp says %v", id, got, want)
	}
}

var taskIDSeeds = []string{"", "TASK-2026-02-09-057", "TASK-2026-02-09-057-01", "TASK-2026-02-09-057\n", "TASK-2026-02-09-57",
	"task-2026-02-09-057", "TASK-2026-02-09-05a", "TASK-2026-02-09-057-1", "TASK-2026-02-09-057-012", "TASK-٢٠٢٦-02-09-057",
	"xTASK-2026-02-09-057", "TASK-2026/02-09-057", "TASK-2026-02-09-057-0x", "TASK-0000-00-00-000-00"}

// TestTaskIDMatchesPattern: every single-byte change of a valid id (the seeds
// run as FuzzTaskID's).
func TestTaskIDMatchesPattern(t *testing.T) {
	// Every single-byte change of a valid id.
	for _, base := range []string{"TASK-2026-02-09-057", "TASK-2026-02-09-057-01"} {
		for i := 0; i < len(base); i++ {
			for _, b := range []byte{'0', '9', '/', ':', 'A', '-', 0, 0xff} {
				id := []byte(base)
				id[i] = b
				agreeTaskID(t, string(id))
			}
		}
	}
}

func FuzzTaskID(f *testing.F) {
	for _, s := range taskIDSeeds {
		f.Add(s)
	}
	f.Fuzz(agreeTaskID)
}
