package conform

import "testing"

// TestFileArg: which arguments of a command line the runner resolves from the
// working directory and provenance may record (one rule for both).
func TestFileArg(t *testing.T) {
	for _, c := range []struct {
		i    int
		a    string
		want bool
	}{
		{0, "python3", false}, // looked up in $PATH
		{0, "./agent", true},
		{0, "bin/agent", true},
		{1, "agent.py", true},
		{1, "-m", false},
		{1, "--flag=x", false},
		{2, "", false},
		{2, "/abs/agent.mjs", true},
	} {
		if got := FileArg(c.i, c.a); got != c.want {
			t.Errorf("FileArg(%d, %q) = %v, want %v", c.i, c.a, got, c.want)
		}
	}
}
