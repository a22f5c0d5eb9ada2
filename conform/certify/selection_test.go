package certify

import (
	"bytes"
	"crypto/ed25519"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// signed signs a statement of a Full run of rep (fixture's) with sel, after edit.
func signed(t *testing.T, sel Selection, edit func(*Statement)) (dir string, pub ed25519.PublicKey, cert []byte, st *Statement) {
	t.Helper()
	dir, pub, _, rep := fixture(t)
	priv, err := LoadPrivateKey(filepath.Join(dir, "k.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err = NewStatement(rep, "agent", true, sel, []string{filepath.Join(dir, "r.json")}, filepath.Join(dir, "cert.json"))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(st)
	}
	if cert, err = Sign(st, priv); err != nil {
		t.Fatal(err)
	}
	return dir, pub, cert, st
}

func badge(t *testing.T, st *Statement, pub ed25519.PublicKey) string {
	t.Helper()
	var b bytes.Buffer
	if err := Badge(&b, st, KeyID(pub)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSelectionCertified (issue 33 item 5): a run of a few checks (--run, --skip)
// certifies no level, whatever level its checks reached: its statement says level
// none and the selection, verify shows it, the badge shows no level. The full
// suite's statement says so too, with the settings.
func TestSelectionCertified(t *testing.T) {
	t.Parallel()
	dir, pub, cert, st := signed(t, Selection{Run: "aop2/5/*,aop2/1.2/response-ids", Full: true}, nil)
	if st.Predicate.Levels["aop2"] != "none" || st.Predicate.Selection.Full {
		t.Fatalf("a --run statement: levels %v, selection %+v", st.Predicate.Levels, st.Predicate.Selection)
	}
	v, err := Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{Suite: suiteAs("sha256:aaaa")})
	if err != nil || !v.OK() {
		t.Fatalf("a partial certificate does not verify: %v\n%s", err, findings(v))
	}
	f := findings(v)
	for _, want := range []string{"selection: PARTIAL (--run aop2/5/*,aop2/1.2/response-ids): no level is certified", "settings: --timeout-scale 1, --repeat 1"} {
		if !strings.Contains(f, want) {
			t.Errorf("verify does not say %q:\n%s", want, f)
		}
	}
	if s := v.Statement.Summary(); !strings.Contains(s, "no level: a partial selection (--run aop2/5/*,aop2/1.2/response-ids), run passed for the selection") || strings.Contains(s, "Full") {
		t.Errorf("summary %q", s)
	}
	if b := badge(t, v.Statement, pub); !strings.Contains(b, ">partial run, no level</text>") || strings.Contains(b, ">Full<") || strings.Contains(b, ">none<") {
		t.Errorf("badge of a partial run:\n%s", b)
	}

	// --skip alone is partial too.
	_, _, _, st = signed(t, Selection{Skip: "aop2/6.1/*"}, nil)
	if st.Predicate.Levels["aop2"] != "none" || !strings.Contains(st.Summary(), "(--skip aop2/6.1/*)") {
		t.Errorf("a --skip statement: %v, %s", st.Predicate.Levels, st.Summary())
	}

	// The full suite: its level, and the settings and the known-failing file.
	kf := &KnownFailingFile{File: "known.txt", SHA256: "5e1f", Entries: []conform.KnownEntry{{Line: 2, Pattern: "aop2/9/*", Reason: "v2", Matched: 1}}}
	dir, pub, cert, st = signed(t, Selection{KnownFailing: kf, Strict: true}, func(st *Statement) {
		st.Predicate.Selection.TimeoutScale, st.Predicate.Selection.Repeat, st.Predicate.Known = 2.5, 3, 1
	})
	if st.Predicate.Levels["aop2"] != "Full" || !st.Predicate.Selection.Full {
		t.Fatalf("a full statement: %v %+v", st.Predicate.Levels, st.Predicate.Selection)
	}
	v, err = Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{})
	if err != nil || !v.OK() {
		t.Fatalf("%v\n%s", err, findings(v))
	}
	f = findings(v)
	for _, want := range []string{"selection: the full suite (no --run, no --skip)", "known-failing: known.txt (sha256 5e1f): 1 entry; 1 failure(s) excused; a level with an excused MUST is not reached: aop2/9/* excused 1 (v2)", "settings: --timeout-scale 2.5, --repeat 3, --strict"} {
		if !strings.Contains(f, want) {
			t.Errorf("verify does not say %q:\n%s", want, f)
		}
	}
	if b := badge(t, v.Statement, pub); !strings.Contains(b, ">Full</text>") {
		t.Errorf("badge of the full suite:\n%s", b)
	}

	// Signed by a certifier whose aopconform got it wrong: a partial selection
	// with a level does not verify, nor a "full" one with --run.
	for _, edit := range []func(*Statement){
		func(st *Statement) { st.Predicate.Levels["aop2"] = "Full" },
		func(st *Statement) { st.Predicate.Selection.Full = true },
	} {
		dir, pub, cert, _ := signed(t, Selection{Run: "aop2/5/*"}, edit)
		v, err := Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{})
		if err != nil || v.OK() {
			t.Errorf("an inconsistent selection verified: %v\n%s", err, findings(v))
		}
	}
}

// TestKnownMustKeepsLevel: a MUST excused by --known-failing (KNOWN) keeps its
// level, and every level above it, from being certified.
func TestKnownMustKeepsLevel(t *testing.T) {
	t.Parallel()
	dir, _, _, rep := fixture(t)
	must := func(tier conform.Tier, v conform.Verdict) conform.Result {
		return conform.Result{Check: "c-" + string(tier) + "-" + string(v), Protocol: "aop2", Level: conform.MUST, Tier: tier, Verdict: v}
	}
	rep.Results = []conform.Result{must(conform.Core, conform.Pass), must(conform.Resilient, conform.Known), must(conform.Full, conform.Pass)}
	rep.Score = conform.ScoreResults("aop2", rep.Results)
	st, err := NewStatement(rep, "agent", true, Selection{KnownFailing: &KnownFailingFile{File: "k.txt"}}, nil, filepath.Join(dir, "c.json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Predicate.Levels["aop2"] != "Core" || st.Predicate.Known != 1 {
		t.Errorf("a known Resilient MUST: levels %v, known %d; want Core, 1", st.Predicate.Levels, st.Predicate.Known)
	}
}

// TestOldCertificate: a certificate without a selection (written before it was
// signed) does not verify: it may be a few checks under the full suite's level.
func TestOldCertificate(t *testing.T) {
	t.Parallel()
	dir, pub, cert, _ := signed(t, Selection{}, func(st *Statement) { st.Predicate.Selection = nil })
	if bytes.Contains(cert, []byte("selection")) {
		t.Fatal("the old certificate has a selection")
	}
	v, err := Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{Suite: suiteAs("sha256:aaaa")})
	if err != nil || v.OK() || !strings.Contains(findings(v), "selection: NOT RECORDED") {
		t.Errorf("an old certificate verified: %v\n%s", err, findings(v))
	}
	if s := v.Statement.Summary(); !strings.Contains(s, "(selection not recorded)") {
		t.Errorf("summary %q", s)
	}
	if b := badge(t, v.Statement, pub); strings.Contains(b, ">Full<") {
		t.Errorf("badge of an old certificate shows its level:\n%s", b)
	}
}

// TestRequirementFindings: verify names the requirements a certificate covers
// and those it does not, against the registry digest of its provenance.
func TestRequirementFindings(t *testing.T) {
	p := &Predicate{Requirements: map[string]RequirementCoverage{
		"orchmsg": {Side: "agent", Covered: 1, Total: 2, IDs: []string{"orchmsg/§a/x"}, Uncovered: []string{"orchmsg/§b/y"}},
	}}
	p.Provenance.Requirements = "sha256:abc"
	fs := requirementFindings(p)
	if len(fs) != 1 || !fs[0].OK {
		t.Fatalf("findings %+v", fs)
	}
	want := "1 of 2 orchmsg agent-side requirements covered (registry sha256:abc); not covered: orchmsg/§b/y"
	if fs[0].Detail != want {
		t.Errorf("got %q\nwant %q", fs[0].Detail, want)
	}
	if fs := requirementFindings(&Predicate{}); len(fs) != 0 {
		t.Errorf("a certificate without requirements: %+v", fs)
	}
}
