package memhttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestTransport(t *testing.T) {
	url, stop := Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		Settle(r.Context())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, r.Method+" "+r.URL.Path+" "+string(body))
	}))
	settled := 0
	c := &http.Client{Transport: Transport{Settle: func() { settled++ }}}
	resp, err := c.Post(url, "application/json", strings.NewReader("hi"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	path := strings.TrimPrefix(url, "http://"+Host)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Content-Type") != "application/json" || string(b) != "POST "+path+" hi" {
		t.Errorf("%d %v %q", resp.StatusCode, resp.Header, b)
	}
	if settled != 3 { // before, in the handler, after
		t.Errorf("settled %d times, want 3", settled)
	}
	// Another path of the host, or a sub-path: 404, the handler is not reached.
	for _, u := range []string{"http://" + Host + "/elsewhere/", url + "sub/"} {
		if resp, err := c.Get(u); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %v %v", u, resp, err)
		}
	}
	// The URL without its trailing slash is the same.
	if resp, err := c.Get(strings.TrimSuffix(url, "/")); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Errorf("without the slash: %v %v", resp, err)
	}
	// A cancelled request is not sent.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if _, err := c.Do(req); err == nil {
		t.Error("a cancelled request was answered")
	}
	// A client that gives up while the handler holds its request gets its error,
	// not an empty answer.
	held, stopHeld := Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer stopHeld()
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, held, strings.NewReader("x"))
	if resp, err := c.Do(req); err == nil {
		t.Errorf("a request the client gave up on was answered: %v", resp.Status)
	}
	// After stop, the URL serves nothing.
	stop()
	if resp, err := c.Get(url); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("stopped: %v %v", resp, err)
	}
	// Any other host goes to the fallback.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "network") }))
	defer srv.Close()
	if resp, err := c.Get(srv.URL); err != nil {
		t.Fatal(err)
	} else if b, _ := io.ReadAll(resp.Body); string(b) != "network" {
		t.Errorf("fallback: %q", b)
	}
}
