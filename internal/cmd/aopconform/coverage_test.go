package aopconformcmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCoverageCommand: `aopconform coverage` filters by protocol and side, prints
// text, JSON and Markdown, and refuses an unknown protocol, side or format (exit 2).
func TestCoverageCommand(t *testing.T) {
	cov := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(append([]string{"aopconform", "coverage"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, _ := cov("--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var all struct {
		Digest       string `json:"digest"`
		Requirements []struct {
			ID, Protocol, Section, Level, Side, Text, Waiver string
			Rules, Checks                                    []string
		} `json:"requirements"`
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	if len(all.Requirements) < 300 || !strings.HasPrefix(all.Digest, "sha256:") {
		t.Fatalf("%d requirements, digest %q", len(all.Requirements), all.Digest)
	}
	code, out, _ = cov("--format", "json", "--protocol", "aos", "--side", "orchestrator")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var some struct {
		Requirements []struct{ Protocol, Side string } `json:"requirements"`
	}
	if err := json.Unmarshal([]byte(out), &some); err != nil {
		t.Fatal(err)
	}
	if len(some.Requirements) == 0 || len(some.Requirements) >= len(all.Requirements) {
		t.Fatalf("--protocol aos --side orchestrator kept %d of %d", len(some.Requirements), len(all.Requirements))
	}
	for _, r := range some.Requirements {
		if r.Protocol != "aos" || r.Side == "agent" {
			t.Errorf("kept %s/%s", r.Protocol, r.Side)
		}
	}
	if code, out, _ = cov(); code != 0 || !strings.Contains(out, "PROTOCOL") || !strings.Contains(out, "MUST requirements enforced") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	if code, out, _ = cov("--format", "md", "--protocol", "aop2"); code != 0 || !strings.Contains(out, "| aop2 |") || strings.Contains(out, "| aos |") {
		t.Errorf("md: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--protocol", "nope"}, {"--side", "both"}, {"--format", "xml"}} {
		if code, _, errs := cov(bad...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", bad, code, errs)
		}
	}
}
