package clikit_test

import (
	"bytes"
	"strings"
	"testing"

	aopconformcmd "github.com/aopkit/aopkit/internal/cmd/aopconform"
	aoplintcmd "github.com/aopkit/aopkit/internal/cmd/aoplint"
	mockagentcmd "github.com/aopkit/aopkit/internal/cmd/mockagent"
)

// TestUsageErrors: a bad flag, on a command or a subcommand of any of the three
// commands, prints one line with a hint on stderr, nothing on stdout, exit 2
// (urfave/cli's default is "Incorrect Usage" and the whole help on stdout).
func TestUsageErrors(t *testing.T) {
	run := map[string]func(args []string, stdout, stderr *bytes.Buffer) int{
		"aoplint": func(args []string, o, e *bytes.Buffer) int {
			return aoplintcmd.Run(args, strings.NewReader(""), o, e)
		},
		"aopconform": func(args []string, o, e *bytes.Buffer) int { return aopconformcmd.Run(args, o, e) },
		"mockagent": func(args []string, o, e *bytes.Buffer) int {
			return mockagentcmd.Run(args, strings.NewReader(""), o, e)
		},
	}
	for _, args := range [][]string{
		{"aoplint", "--frobnicate", "x"},
		{"aoplint", "x", "--frobnicate"},
		{"aoplint", "--format", "json", "--frobnicate", "x"},
		{"aoplint", "rules", "--frobnicate"},
		{"aoplint", "config", "check", "--frobnicate"},
		{"aoplint", "completion", "--frobnicate"},
		{"aoplint", "lint", "--jobs"},
		{"aopconform", "--frobnicate", "x"},
		{"aopconform", "run", "--frobnicate"},
		{"aopconform", "completion", "--frobnicate"},
		{"mockagent", "--frobnicate", "x"},
		{"mockagent", "faults", "--frobnicate"},
		{"mockagent", "completion", "--frobnicate"},
	} {
		var stdout, stderr bytes.Buffer
		code := run[args[0]](args, &stdout, &stderr)
		name := strings.Join(args, " ")
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", name, code)
		}
		if stdout.Len() > 0 {
			t.Errorf("%s: stdout %q, want nothing", name, stdout.String())
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], args[0]+": ") || !strings.HasSuffix(lines[0], " --help)") {
			t.Errorf("%s: stderr %q, want one line %q…%q", name, stderr.String(), args[0]+": ", "--help)")
		}
	}
}
