package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/linter"
)

// TestGuardianMode: the reference guardian passes every probe; a guardian that
// answers with a made-up decision and string errors fails, exit 1; no URL, exit 2.
func TestGuardianMode(t *testing.T) {
	srv, err := aos.NewGuardian(aos.DefaultPolicy()).Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"aopconform", "guardian", srv.URL}, &out, &errb); code != 0 {
		t.Fatalf("reference guardian: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "aos/orch/5.3/ping") || !strings.Contains(out.String(), "8/8 checks passed") {
		t.Errorf("output:\n%s", out.String())
	}
	// --out: the probes and answers as a transcript/1 file, written by the
	// harness's recorder (aopkit's requests from "agent", the answers from
	// "orchestrator"), that aoplint reads without an error.
	dir := filepath.Join(t.TempDir(), "out")
	out.Reset()
	if code := run([]string{"aopconform", "guardian", "--out", dir, srv.URL}, &out, &errb); code != 0 {
		t.Fatalf("--out: exit %d\n%s%s", code, out.String(), errb.String())
	}
	path := filepath.Join(dir, "aos-guardian-probe.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	from := map[conform.Actor]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r conform.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Aopkit != conform.TranscriptVersion || r.Seq != i+1 {
			t.Fatalf("line %d is not a transcript/1 record: %s", i+1, line)
		}
		from[r.From]++
	}
	if from["agent"] != 7 || from["orchestrator"] != 7 {
		t.Errorf("records by side %v, want 7 probes and 7 answers", from)
	}
	res, err := linter.LintFile(path, linter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		if d.Severity == lint.Error {
			t.Errorf("aoplint on the transcript: %s line %d: %s", d.Rule, d.Line, d.Message)
		}
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"decision":"block"}}`)
	}))
	defer bad.Close()
	out.Reset()
	if code := run([]string{"aopconform", "guardian", bad.URL}, &out, &errb); code != 1 {
		t.Fatalf("bad guardian: exit %d, want 1\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "FAIL") {
		t.Errorf("no FAIL in:\n%s", out.String())
	}
	// The lint step judges the guardian's answers too: a guardian that echoes ids
	// as strings (an engine fault) breaks aoplint's rules.
	faulty := aos.NewGuardian(aos.DefaultPolicy())
	faulty.Fault = "string-ids"
	fsrv, err := faulty.Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer fsrv.Close()
	out.Reset()
	if code := run([]string{"aopconform", "guardian", fsrv.URL}, &out, &errb); code != 1 {
		t.Fatalf("string-ids guardian: exit %d, want 1\n%s", code, out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, aos.MessagesValidID) && !strings.Contains(line, "FAIL") {
			t.Errorf("the lint step passes a guardian answering ids as strings:\n%s", out.String())
		}
	}
	if code := run([]string{"aopconform", "guardian"}, &out, &errb); code != 2 {
		t.Errorf("no URL: exit %d, want 2", code)
	}
}

// TestGuardianModeHostile: a redirect is graded, never followed; a URL where nothing
// answers is unusable (exit 2), not a failed guardian.
func TestGuardianModeHostile(t *testing.T) {
	var followed atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		followed.Add(1)
		aos.NewGuardian(aos.DefaultPolicy()).ServeHTTP(w, r)
	}))
	defer elsewhere.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"aopconform", "guardian", redirect.URL}, &out, &errb); code != 1 {
		t.Errorf("redirecting guardian: exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	if n := followed.Load(); n != 0 {
		t.Errorf("the prober followed the redirect %d times", n)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	ln.Close()
	out.Reset()
	errb.Reset()
	if code := run([]string{"aopconform", "guardian", refused}, &out, &errb); code != 2 {
		t.Errorf("refused connection: exit %d, want 2\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "cannot be used") {
		t.Errorf("stderr: %s", errb.String())
	}
}

// TestServedGuardianPath: the guardian aopconform serves answers only at its
// unguessable path.
func TestServedGuardianPath(t *testing.T) {
	srv, err := aos.NewGuardian(aos.DefaultPolicy()).Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	if len(strings.Trim(u.Path, "/")) < 32 {
		t.Fatalf("guessable path %q", u.Path)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, p := range []string{"/", "/x/", strings.TrimSuffix(u.Path, "/") + "x/"} {
		resp, err := http.Post("http://"+u.Host+p, "application/json", strings.NewReader(ping))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", p, resp.StatusCode)
		}
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(ping))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("POST the guardian's URL: %d", resp.StatusCode)
	}
}
