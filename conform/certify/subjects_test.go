package certify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/provenance"
)

// interpreted certifies `sh agent.sh conf.json`: the interpreter sh (a copy in
// dir) and the two files its command line names.
func interpreted(t *testing.T) (dir string, cert []byte, opts func(...string) (*Verification, error)) {
	t.Helper()
	dir, pub, _, _ := fixture(t)
	priv, err := LoadPrivateKey(filepath.Join(dir, "k.key"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"sh": "#!interpreter\n", "agent.sh": "echo agent\n", "conf.json": "{}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(name string) string {
		s, err := provenance.FileSHA256(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rep := &conform.Report{Protocol: "aop2", Score: conform.Score{Level: conform.Full, MustPassed: 3, MustTotal: 3},
		Provenance: &conform.Provenance{Aopconform: "v1", Suite: conform.SuiteID{Digest: "sha256:aaaa", Protocol: "aop2", Builtin: true},
			Agent: conform.AgentID{Command: []string{"sh", "agent.sh", "conf.json"}, Executable: filepath.Join(dir, "sh"), SHA256: sum("sh"),
				Files: []conform.AgentFile{{Path: "agent.sh", SHA256: sum("agent.sh")}, {Path: "conf.json", SHA256: sum("conf.json")}}},
			Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	st, err := NewStatement(rep, "agent", true, Selection{}, []string{filepath.Join(dir, "r.json")}, filepath.Join(dir, "cert.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range st.Subject {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "sh agent.sh conf.json" {
		t.Fatalf("subjects %q, want the executable first, then the named files as given", got)
	}
	if st.Subject[1].Digest["sha256"] != sum("agent.sh") {
		t.Fatalf("the script's subject has digest %v", st.Subject[1].Digest)
	}
	cert, err = Sign(st, priv)
	if err != nil {
		t.Fatal(err)
	}
	return dir, cert, func(files ...string) (*Verification, error) {
		for i, f := range files {
			files[i] = filepath.Join(dir, f)
		}
		return Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{Agents: files})
	}
}

// The certificate of an interpreted agent certifies its script: the script
// verifies, the interpreter alone does not, a script changed by one byte does
// not; the interpreter is reported NOT CHECKED unless given.
func TestInterpretedAgentSubjects(t *testing.T) {
	t.Parallel()
	dir, _, verify := interpreted(t)
	for _, tc := range []struct {
		files []string
		ok    bool
		want  []string
	}{
		{nil, true, nil},
		{[]string{"agent.sh", "conf.json"}, true, []string{
			"agent: " + filepath.Join(dir, "agent.sh") + " is the certified agent.sh (sha256 ",
			", run by sh)",
			"agent: NOT CHECKED: the program sh (sha256 ",
		}},
		{[]string{"conf.json", "sh", "agent.sh"}, true, []string{"is the certified program sh"}},
		{[]string{"sh"}, false, []string{
			"is the certified program sh",
			"agent: NOT CHECKED: agent.sh (sha256 ", "named on the certified command line, matched no --agent file: the certificate is of agent.sh run by sh",
			"agent: NOT CHECKED: conf.json",
		}},
		{[]string{"agent.sh"}, false, []string{"NOT CHECKED: conf.json"}},
		{[]string{"agent.sh", "conf.json", "r.json"}, false, []string{"r.json is none of the certified files (sha256 "}},
	} {
		v, err := verify(append([]string(nil), tc.files...)...)
		if err != nil {
			t.Fatal(err)
		}
		f := findings(v)
		if v.OK() != tc.ok {
			t.Errorf("--agent %v: OK %v, want %v:\n%s", tc.files, v.OK(), tc.ok, f)
		}
		for _, w := range tc.want {
			if !strings.Contains(f, w) {
				t.Errorf("--agent %v: no %q in\n%s", tc.files, w, f)
			}
		}
		if len(tc.files) == 0 && strings.Contains(f, "agent:") {
			t.Errorf("no --agent, yet agent findings:\n%s", f)
		}
		sum := v.Statement.Summary()
		if !strings.Contains(sum, " certified agent.sh (sha256:") || !strings.Contains(sum, "conf.json (sha256:") || !strings.Contains(sum, ") run by sh (sha256:") {
			t.Errorf("summary %q does not name the script run by the interpreter", sum)
		}
	}

	// One byte more in the script: it is none of the certified files.
	if err := os.WriteFile(filepath.Join(dir, "agent.sh"), []byte("echo agent\n#"), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := verify("agent.sh", "conf.json")
	if err != nil {
		t.Fatal(err)
	}
	if f := findings(v); v.OK() || !strings.Contains(f, "agent.sh is none of the certified files") || !strings.Contains(f, "NOT CHECKED: agent.sh") {
		t.Errorf("a changed script verifies:\n%s", f)
	}
}

// A certificate of one subject (a compiled agent, or written before named
// files were recorded) verifies as before: the executable alone.
func TestSingleSubjectUnchanged(t *testing.T) {
	t.Parallel()
	dir, pub, cert, rep := fixture(t)
	st, err := Open(cert, pub)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Subject) != 1 || st.Subject[0].Name != "agent" {
		t.Fatalf("subjects %+v", st.Subject)
	}
	if s := st.Summary(); !strings.Contains(s, " certified agent (sha256:"+rep.Provenance.Agent.SHA256+") as an agent") {
		t.Errorf("summary %q", s)
	}
	v, err := Verify(filepath.Join(dir, "cert.json"), cert, pub, Options{Agents: []string{filepath.Join(dir, "agent")}})
	if err != nil {
		t.Fatal(err)
	}
	if f := findings(v); !strings.Contains(f, "is not the certified executable (sha256 ") || strings.Contains(f, "NOT CHECKED") {
		t.Errorf("findings:\n%s", f)
	}
}
