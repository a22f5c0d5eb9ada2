package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/engine/clock"
)

// TestGuardianMode: the reference guardian passes every probe; a guardian that
// answers with a made-up decision and string errors fails, exit 1; no URL, exit 2.
func TestGuardianMode(t *testing.T) {
	srv, err := aos.NewGuardian(aos.DefaultPolicy(), clock.Real{}, nil).Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out, errb bytes.Buffer
	if code := run([]string{"aopconform", "guardian", srv.URL}, &out, &errb); code != 0 {
		t.Fatalf("reference guardian: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "aos/guardian/ping") || !strings.Contains(out.String(), "7/7 checks passed") {
		t.Errorf("output:\n%s", out.String())
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
	if code := run([]string{"aopconform", "guardian"}, &out, &errb); code != 2 {
		t.Errorf("no URL: exit %d, want 2", code)
	}
}
