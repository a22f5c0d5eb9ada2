package project

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/config"
)

// TestSelect is the table of docs/configuration.md §Which files are protocol
// files: a file without a marker by --unrecognised and where it came from.
func TestSelect(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "package.json")
	msg := filepath.Join(dir, "m.json")
	other := filepath.Join(dir, "notes.md")
	os.WriteFile(plain, []byte(`{"name":"x"}`), 0o644)
	os.WriteFile(msg, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 0o644)
	os.WriteFile(other, []byte(`{"jsonrpc":"2.0"}`), 0o644)
	cases := []struct {
		mode                  string
		plainNamed, plainWalk bool
	}{
		{config.UnrecognisedAuto, true, false},
		{config.UnrecognisedSkip, false, false},
		{config.UnrecognisedError, true, true},
	}
	for _, tc := range cases {
		p, err := Open(Options{NoConfig: true, Unrecognised: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Select(plain, true); got != tc.plainNamed {
			t.Errorf("%s: named package.json selected = %v", tc.mode, got)
		}
		if got := p.Select(plain, false); got != tc.plainWalk {
			t.Errorf("%s: walked package.json selected = %v", tc.mode, got)
		}
		if !p.Select(msg, true) || !p.Select(msg, false) {
			t.Errorf("%s: a message is always selected", tc.mode)
		}
		if p.Select(other, false) {
			t.Errorf("%s: a walk picks up a .md file", tc.mode)
		}
		if !p.Select(other, true) {
			t.Errorf("%s: a file named on the command line is linted whatever its name", tc.mode)
		}
	}
	p, _ := Open(Options{NoConfig: true})
	p.Select(plain, false)
	if len(p.Skipped) != 1 || p.SkippedLine() != "1 file skipped: no protocol detected (--verbose lists it)" {
		t.Errorf("skipped: %v %q", p.Skipped, p.SkippedLine())
	}
}
