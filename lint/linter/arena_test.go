package linter_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/linter"
)

// arenaChild marks the run of this test binary that lints with poisoned arenas.
const arenaChild = "AOPKIT_ARENA_TEST_CHILD"

// TestArenaOwnership lints a generated transcript (every protocol, harness records,
// broken lines) with one and two workers, here and in a child process whose
// arenas and unit memories fill every tree, message and line index they take back
// with poison (AOPKIT_ARENA_POISON=1). The results are equal only if no rule and
// no part of the driver uses a tree or a message after its line is done, other
// than through the copies the driver keeps (keep, heldRecord).
func TestArenaOwnership(t *testing.T) {
	var buf bytes.Buffer
	if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 7, Messages: 3000, InvalidEvery: 50}); err != nil {
		t.Fatal(err)
	}
	results := func() []byte {
		var out []linter.FileResult
		for _, workers := range []int{1, 2} {
			res, err := linter.LintStream("t.jsonl", bytes.NewReader(buf.Bytes()), linter.Options{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		data, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if os.Getenv(arenaChild) != "" {
		os.Stdout.Write(results())
		return
	}
	want := results()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestArenaOwnership$")
	cmd.Env = append(os.Environ(), arenaChild+"=1", "AOPKIT_ARENA_POISON=1")
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	got = bytes.TrimSuffix(bytes.TrimSpace(got), []byte("PASS"))
	if !bytes.Equal(bytes.TrimSpace(got), want) {
		t.Fatalf("with poisoned arenas the results differ:\n%.2000s\nwant\n%.2000s", got, want)
	}
}
