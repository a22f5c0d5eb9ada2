package knownfail

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/conform"
	_ "github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/internal/testdeadline"
)

func TestParse(t *testing.T) {
	t.Parallel()
	kf, err := Parse("k.txt", []byte("# comment\n\naop2/6.1/*   heartbeats come from the supervisor\n  aop2/5/final-signal\tnot yet (ISSUE-3)  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(kf.Entries) != 2 || kf.Entries[0].Line != 3 || kf.Entries[0].Pattern != "aop2/6.1/*" || kf.Entries[1].Reason != "not yet (ISSUE-3)" {
		t.Errorf("entries: %+v", kf.Entries)
	}
	for _, bad := range []string{"aop2/5/final-signal\n", "a,b reason\n"} {
		if _, err := Parse("k.txt", []byte(bad)); err == nil || !strings.Contains(err.Error(), "k.txt:1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	kf, _ = Parse("k.txt", []byte("aop2/no-such-check typo\n"))
	if err := CheckIDs(kf); err == nil || !strings.Contains(err.Error(), "matches no check") {
		t.Errorf("unknown check accepted: %v", err)
	}
}

func res(check, scenario string, level conform.Level, v conform.Verdict) conform.Result {
	return conform.Result{Check: check, Scenario: scenario, Protocol: "aop2", Tier: conform.Core, Level: level, Verdict: v, Message: "msg"}
}

func TestApply(t *testing.T) {
	t.Parallel()
	rep := &conform.Report{Protocol: "aop2", Results: []conform.Result{
		res("aop2/5/final-signal", "s1", conform.MUST, conform.Fail),
		res("aop2/5/final-signal", "s2", conform.MUST, conform.Pass),
		res("aop2/5/final-response", "s1", conform.MUST, conform.Pass),
		res("aop2/6.1/heartbeat-interval", "s3", conform.MUST, conform.Skip),
		res("aop2/1.1/version-header", "s1", conform.MUST, conform.Pass),
	}}
	kf, err := Parse("k.txt", []byte("aop2/5/final-signal not yet\naop2/5/final-response fixed last week\naop2/6.1/* deselected today\n"))
	if err != nil {
		t.Fatal(err)
	}
	Apply(rep, kf)
	if v := rep.Results[0].Verdict; v != conform.Known || !strings.HasPrefix(rep.Results[0].Message, "known failure (not yet): msg") {
		t.Errorf("listed failure: %s %q", v, rep.Results[0].Message)
	}
	e := rep.KnownFailing.Entries
	if e[0].Matched != 1 || e[0].Stale {
		t.Errorf("entry 1 (fails in s1, passes in s2): %+v", e[0])
	}
	if !e[1].Stale {
		t.Errorf("entry 2 passes everywhere but is not stale: %+v", e[1])
	}
	if e[2].Stale || e[2].Matched != 0 {
		t.Errorf("entry 3 matched only skipped results: %+v", e[2])
	}
	// The known failure does not fail the run, but the level is not reached.
	if MustFailed(rep) {
		t.Error("a known failure fails the run")
	}
	if rep.Score.Level != "" || !rep.Score.MustFailed {
		t.Errorf("a known MUST failure reached level %q", rep.Score.Level)
	}
	rep.Results = append(rep.Results, res("aop2/5/minimal-report", "s1", conform.MUST, conform.Fail))
	if !MustFailed(rep) {
		t.Error("an unlisted MUST failure does not fail the run")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("aop2/5/* reason\n# c\n\n"))
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		kf, err := Parse("f", data)
		if err != nil {
			return
		}
		for _, e := range kf.Entries {
			if e.Pattern == "" || e.Reason == "" || strings.ContainsAny(e.Pattern, " \t,") {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

// TestApplyDependents: a check NOT-JUDGED because of a known failure is known with
// it, so the known root cause does not fail the run through its dependents.
func TestApplyDependents(t *testing.T) {
	t.Parallel()
	dep := res("aop2/1.2/response-ids", "s1", conform.MUST, conform.NotJudged)
	dep.DependsOn = "aop2/5/final-response"
	rep := &conform.Report{Protocol: "aop2", Results: []conform.Result{
		res("aop2/5/final-response", "s1", conform.MUST, conform.Fail),
		dep,
		res("aop2/1.1/version-header", "s1", conform.MUST, conform.Pass),
	}}
	kf, err := Parse("k.txt", []byte("aop2/5/final-response no RESPONSE yet\n"))
	if err != nil {
		t.Fatal(err)
	}
	Apply(rep, kf)
	if v := rep.Results[1].Verdict; v != conform.Known {
		t.Errorf("dependent of a known failure: %s %q", v, rep.Results[1].Message)
	}
	if MustFailed(rep) {
		t.Error("a known root cause fails the run through its NOT-JUDGED dependent")
	}
}

// A file that is no known-failing file is never printed in the error about it,
// and one that is a FIFO or a link to /dev/zero is refused at once.
func TestLoadForeignFiles(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "passwd")
	os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash\nsecret token-1234 x\n"), 0o600)
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("127.0.0.1 localhost\n"), 0o600)
	for _, p := range []string{secret, hosts} {
		_, err := Load(p)
		if err == nil || strings.Contains(err.Error(), "root:x") || strings.Contains(err.Error(), "127.0.0.1") || !strings.Contains(err.Error(), p+":1") {
			t.Errorf("Load(%s): %v", p, err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	for _, p := range []string{fifo, zero} {
		done := make(chan error, 1)
		go func() { _, err := Load(p); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Load(%s): %v", p, err)
			}
		case <-testdeadline.Near(t):
			t.Fatalf("Load(%s) hangs", p)
		}
	}
}
