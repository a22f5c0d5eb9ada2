package certify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// The DSSE specification's PAE example.
func TestPAE(t *testing.T) {
	t.Parallel()
	got := string(PAE("http://example.com/HelloWorld", []byte("hello world")))
	if want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"; got != want {
		t.Errorf("PAE = %q, want %q", got, want)
	}
}

// fixture writes a key pair, a report file and an agent executable, and returns a
// certificate of them.
func fixture(t *testing.T) (dir string, pub ed25519.PublicKey, cert []byte, rep *conform.Report) {
	t.Helper()
	return fixtureOf(t, "agent")
}

// fixtureOf is fixture for a run of side ("" signs a statement without a side, as
// certificates were before sides existed).
func fixtureOf(t *testing.T, side string) (dir string, pub ed25519.PublicKey, cert []byte, rep *conform.Report) {
	t.Helper()
	dir = t.TempDir()
	pub, err := GenerateKey(filepath.Join(dir, "k"))
	if err != nil {
		t.Fatal(err)
	}
	priv, err := LoadPrivateKey(filepath.Join(dir, "k.key"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "r.json"), []byte(`{"schema":"aopconform-report/1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep = &conform.Report{Protocol: "aop2", Score: conform.Score{Level: conform.Full, MustPassed: 3, MustTotal: 3},
		Provenance: &conform.Provenance{Aopconform: "v1", Suite: conform.SuiteID{Digest: "sha256:aaaa", Protocol: "aop2", Builtin: true},
			Agent:   conform.AgentID{Command: []string{"./agent"}, Executable: filepath.Join(dir, "agent"), SHA256: "2b6c0d8ee5a0a3ba5a0a5ff95d6c4a2a4bd5e8c2b8e97e5b7f2c0fb0d3f0a0a0"},
			Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	st, err := NewStatement(rep, "agent", true, Selection{}, []string{filepath.Join(dir, "r.json")}, filepath.Join(dir, "cert.json"))
	if err != nil {
		t.Fatal(err)
	}
	st.Predicate.Side = side
	cert, err = Sign(st, priv)
	if err != nil {
		t.Fatal(err)
	}
	return dir, pub, cert, rep
}

func suiteAs(digest string) SuiteFunc {
	return func(string, string, bool, []string) (conform.SuiteID, error) {
		return conform.SuiteID{Digest: digest}, nil
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	dir, pub, cert, _ := fixture(t)
	certPath := filepath.Join(dir, "cert.json")
	v, err := Verify(certPath, cert, pub, Options{Suite: suiteAs("sha256:aaaa")})
	if err != nil || !v.OK() {
		t.Fatalf("fresh certificate does not verify: %v %+v", err, v)
	}
	if v.Statement.Predicate.Levels["aop2"] != "Full" || v.Statement.Predicate.Reports[0].Name != "r.json" {
		t.Errorf("statement: %+v", v.Statement.Predicate)
	}
	var buf bytes.Buffer
	if err := Badge(&buf, v.Statement, KeyID(pub)); err != nil || !strings.Contains(buf.String(), ">Full</text>") || !strings.HasPrefix(buf.String(), "<svg") {
		t.Errorf("badge: %v\n%s", err, buf.String())
	}

	// The suite changed since: not verified, re-certification needed.
	v, err = Verify(certPath, cert, pub, Options{Suite: suiteAs("sha256:bbbb")})
	if err != nil || v.OK() || !strings.Contains(findings(v), "re-certification needed") {
		t.Errorf("changed suite verified: %v %s", err, findings(v))
	}

	// One byte of the report changed.
	if err := os.WriteFile(filepath.Join(dir, "r.json"), []byte(`{"schema":"aopconform-report/2"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err = Verify(certPath, cert, pub, Options{Suite: suiteAs("sha256:aaaa")})
	if err != nil || v.OK() || !strings.Contains(findings(v), "report r.json: CHANGED") {
		t.Errorf("changed report verified: %v %s", err, findings(v))
	}

	// Another agent executable.
	v, _ = Verify(certPath, cert, pub, Options{Agents: []string{filepath.Join(dir, "agent")}})
	if v.OK() || !strings.Contains(findings(v), "is not the certified executable") {
		t.Errorf("other agent verified: %s", findings(v))
	}
}

// The certificate records the side under test; verify loads the suite as that
// side's, names the subject by its side, and the summary and badge say it. A
// certificate without a side is an agent's.
func TestSides(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ side, want, summary, badge string }{
		{"orchestrator", "orchestrator", "as an orchestrator: level aop2 Full", `aria-label="aopconform aop2 orchestrator: Full"`},
		{"agent", "agent", "as an agent: level aop2 Full", `aria-label="aopconform aop2: Full"`},
		{"", "agent", "as an agent: level aop2 Full", `aria-label="aopconform aop2: Full"`},
	} {
		dir, pub, cert, _ := fixtureOf(t, tc.side)
		var asked []string
		suite := func(side, protocol string, _ bool, _ []string) (conform.SuiteID, error) {
			asked = append(asked, side+" "+protocol)
			return conform.SuiteID{Digest: "sha256:aaaa"}, nil
		}
		v, err := Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{Suite: suite, Agents: []string{filepath.Join(dir, "agent")}})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Statement.Predicate.SubjectSide(); got != tc.want {
			t.Errorf("side %q: SubjectSide %q", tc.side, got)
		}
		if len(asked) != 1 || asked[0] != tc.want+" aop2" {
			t.Errorf("side %q: the suite was loaded as %q", tc.side, asked)
		}
		f := findings(v)
		if !strings.Contains(f, "\n"+tc.want+": ") || !strings.Contains(f, "is not the certified executable") {
			t.Errorf("side %q: the executable is not named by its side:\n%s", tc.side, f)
		}
		if (tc.side != "") != strings.Contains(f, "side: "+tc.want+" (the suite is the "+tc.want+" side's)") {
			t.Errorf("side %q: side finding:\n%s", tc.side, f)
		}
		if s := v.Statement.Summary(); !strings.Contains(s, tc.summary) {
			t.Errorf("side %q: summary %q", tc.side, s)
		}
		var buf bytes.Buffer
		if err := Badge(&buf, v.Statement, KeyID(pub)); err != nil || !strings.Contains(buf.String(), tc.badge) {
			t.Errorf("side %q: badge %v\n%s", tc.side, err, buf.String())
		}
	}
	// A suite that cannot be loaded as the certificate's side does not verify.
	dir, pub, cert, _ := fixtureOf(t, "guardian")
	v, err := Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{Suite: func(side, _ string, _ bool, _ []string) (conform.SuiteID, error) {
		return conform.SuiteID{}, errors.New("the certificate's side " + side + " is unknown")
	}})
	if err != nil || v.OK() || !strings.Contains(findings(v), "cannot load the suite: the certificate's side guardian is unknown") {
		t.Errorf("unknown side verified: %v %s", err, findings(v))
	}
	// NewStatement needs the side.
	_, _, _, rep := fixture(t)
	if _, err := NewStatement(rep, "", true, Selection{}, nil, filepath.Join(dir, "c.json")); err == nil {
		t.Error("a statement without a side")
	}
}

func findings(v *Verification) string {
	if v == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, f := range v.Findings {
		b.WriteString(f.What + ": " + f.Detail + "\n")
	}
	return b.String()
}

func TestSignatureRejected(t *testing.T) {
	t.Parallel()
	dir, pub, cert, _ := fixture(t)
	other, _, _ := ed25519.GenerateKey(nil)
	if _, err := Open(cert, other); err != ErrSignature {
		t.Errorf("another key: %v", err)
	}
	// Change one byte of the signed statement (the level) and re-encode it.
	var env Envelope
	if err := json.Unmarshal(cert, &env); err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(env.Payload)
	tampered := bytes.Replace(payload, []byte(`"aop2":"Full"`), []byte(`"aop2":"Fulm"`), 1)
	if bytes.Equal(tampered, payload) {
		t.Fatal("level not found in the payload")
	}
	env.Payload = base64.StdEncoding.EncodeToString(tampered)
	bad, _ := json.Marshal(env)
	if _, err := Verify(filepath.Join(dir, "cert.json"), bad, pub, Options{}); err != ErrSignature {
		t.Errorf("tampered statement: %v", err)
	}
	for _, junk := range []string{"", "{}", `{"payloadType":"application/vnd.in-toto+json","payload":"!!"}`, "null", "[1]"} {
		if _, err := Open([]byte(junk), pub); err == nil {
			t.Errorf("%q opened", junk)
		}
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := GenerateKey(filepath.Join(dir, "k")); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKey(filepath.Join(dir, "k")); err == nil {
		t.Error("GenerateKey overwrote a key")
	}
	// Only the public half exists: nothing is written.
	os.WriteFile(filepath.Join(dir, "p.pub"), []byte("x"), 0o644)
	if _, err := GenerateKey(filepath.Join(dir, "p")); err == nil {
		t.Error("GenerateKey overwrote a public key")
	}
	if _, err := os.Stat(filepath.Join(dir, "p.key")); err == nil {
		t.Error("GenerateKey left a private key without its public key")
	}
	if st, _ := os.Stat(filepath.Join(dir, "k.key")); st.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v", st.Mode().Perm())
	}
	if _, err := LoadPublicKey(filepath.Join(dir, "k.key")); err == nil {
		t.Error("a private key loaded as a public key")
	}
	if _, err := LoadPrivateKey(filepath.Join(dir, "k.pub")); err == nil {
		t.Error("a public key loaded as a private key")
	}
}

func FuzzOpen(f *testing.F) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	good, _ := Sign(&Statement{Type: StatementType, PredicateType: PredicateType}, priv)
	f.Add(good)
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"sig":"AAAA"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Open(data, pub)
		if err == nil && st == nil {
			t.Fatal("nil statement without error")
		}
	})
}

// Keys made by OpenSSL, as docs/aopconform.md says, sign and verify.
func TestOpenSSLKeys(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl")
	}
	dir := t.TempDir()
	key, pubPath := filepath.Join(dir, "c.key"), filepath.Join(dir, "c.pub")
	for _, args := range [][]string{{"genpkey", "-algorithm", "ed25519", "-out", key}, {"pkey", "-in", key, "-pubout", "-out", pubPath}} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Skipf("openssl %v: %v %s", args, err, out)
		}
	}
	priv, err := LoadPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := LoadPublicKey(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := Sign(&Statement{Type: StatementType, PredicateType: PredicateType}, priv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(cert, pub); err != nil {
		t.Errorf("an OpenSSL key pair does not round-trip: %v", err)
	}
}

// The statement says how many of the protocol's requirements the passing checks
// enforce, and the signature covers it.
func TestStatementRequirements(t *testing.T) {
	t.Parallel()
	dir, pub, _, rep := fixture(t)
	priv, err := LoadPrivateKey(filepath.Join(dir, "k.key"))
	if err != nil {
		t.Fatal(err)
	}
	rep.Results = []conform.Result{{Check: "aop2/6.1/heartbeat-interval", Verdict: conform.Pass}, {Check: "aop2/5/final-response", Verdict: conform.Fail}}
	st, err := NewStatement(rep, "agent", true, Selection{}, []string{filepath.Join(dir, "r.json")}, filepath.Join(dir, "cert.json"))
	if err != nil {
		t.Fatal(err)
	}
	rc := st.Predicate.Requirements["aop2"]
	if rc.Side != "agent" || rc.Covered < 2 || rc.Total < 50 || rc.Covered >= rc.Total || len(rc.IDs) != rc.Covered || len(rc.IDs)+len(rc.Uncovered) != rc.Total {
		t.Fatalf("requirements: %+v", st.Predicate.Requirements)
	}
	cert, err := Sign(st, priv)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Open(cert, pub)
	if err != nil || !reflect.DeepEqual(back.Predicate.Requirements["aop2"], rc) {
		t.Errorf("round trip: %v %+v", err, back)
	}
}
