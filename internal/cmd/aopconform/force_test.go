package aopconformcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/certify"
	"github.com/aopkit/aopkit/mockagent"
)

// TestForceReplacesReports (issue 31): an existing --report or --certificate
// file is refused without --force and replaced with it; a symbolic link in its
// place is refused even with --force and what it points to is left alone.
func TestForceReplacesReports(t *testing.T) {
	dir := t.TempDir()
	pub, err := certify.GenerateKey(filepath.Join(dir, "k"))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := mockagent.Lookup("aop-output")
	if err != nil {
		t.Fatal(err)
	}
	js, md, cert := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "c.json")
	for _, f := range []string{js, md, cert} {
		if err := os.WriteFile(f, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(force bool, out string, reports ...string) (string, error) {
		cfg := runConfig{
			Protocol: "aop-output", Builtin: true, Run: "aop-output/bind/exit-zero", TimeoutScale: 1, Repeat: 1,
			Out: filepath.Join(dir, out), Reports: reports, Force: force, NoLint: true,
			Command: []string{"/bin/true"}, launcher: agentio.InProcess{Agent: ag},
			Cert: certConfig{Certify: filepath.Join(dir, "k.key"), Certificate: cert, TimeoutScale: 1, Repeat: 1},
		}
		var stdout, stderr bytes.Buffer
		err := runCmd(context.Background(), cfg, &stdout, &stderr)
		return stderr.String() + stdout.String(), err
	}
	unchanged := func(files ...string) {
		t.Helper()
		for _, f := range files {
			if b, err := os.ReadFile(f); err != nil || string(b) != "old\n" {
				t.Errorf("%s was written: %q %v", f, b, err)
			}
		}
	}

	// Without --force: refused before anything runs.
	out, err := run(false, "o1", js, md)
	if err == nil || !strings.Contains(out, "r.json: the file already exists and this run did not create it: refusing to overwrite it (--force replaces it)") {
		t.Fatalf("an existing --report without --force: %v\n%s", err, out)
	}
	unchanged(js, md, cert)
	if _, err := os.Stat(filepath.Join(dir, "o1")); err == nil {
		t.Error("the refused run ran: its --out exists")
	}

	// With --force: both reports and the certificate are replaced.
	if out, err := run(true, "o2", js, md); err != nil {
		t.Fatalf("--force: %v\n%s", err, out)
	}
	for _, f := range []string{js, md} {
		if b, _ := os.ReadFile(f); string(b) == "old\n" || len(b) < 20 {
			t.Errorf("--force did not replace %s: %q", f, b)
		}
	}
	data, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := certify.Open(data, pub); err != nil {
		t.Errorf("--force: the certificate was not replaced by a signed one: %v", err)
	}

	// A symbolic link is never written through, --force or not.
	victim, link := filepath.Join(dir, "victim"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(victim, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	out, err = run(true, "o3", link)
	if err == nil || !strings.Contains(out, "link.json is not a regular file (a symbolic link): refusing to replace it, even with --force") {
		t.Errorf("--force with a symbolic link as --report: %v\n%s", err, out)
	}
	unchanged(victim)
	if err := os.Remove(cert); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, cert); err != nil {
		t.Fatal(err)
	}
	out, err = run(true, "o4", filepath.Join(dir, "r2.json"))
	if err == nil || !strings.Contains(out, "--certificate "+cert+" is not a regular file (a symbolic link)") {
		t.Errorf("--force with a symbolic link as --certificate: %v\n%s", err, out)
	}
	unchanged(victim)
}
