// Package memhttp carries HTTP requests between an agent and an orchestrator that
// run in the same process, without a socket: the reference engine serves its
// handler under a URL of its own (Serve), and the in-process agent's client
// (Transport) calls that handler directly. A synctest bubble cannot virtualise
// network I/O, so this is how an HTTP protocol (aos) runs on virtual time.
//
// Requests to any URL not served here go to the network (Transport.Fallback), so
// the same client works in a real process, where nothing is served in memory.
package memhttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Host is the host of every in-memory URL (".invalid": it resolves nowhere, so a
// URL that escapes to a real process fails at once instead of reaching a stranger).
const Host = "aopkit-memhttp.invalid"

var (
	mu       sync.Mutex
	handlers = map[string]http.Handler{} // path "/<secret>/" → handler
)

// Serve registers h under a fresh unguessable URL "http://Host/<secret>/" (with
// or without its trailing slash); stop unregisters it. Requests to any other path
// of Host, sub-paths included, get 404.
func Serve(h http.Handler) (url string, stop func()) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("memhttp: no randomness: " + err.Error())
	}
	prefix := "/" + hex.EncodeToString(b) + "/"
	mu.Lock()
	handlers[prefix] = h
	mu.Unlock()
	return "http://" + Host + prefix, func() {
		mu.Lock()
		delete(handlers, prefix)
		mu.Unlock()
	}
}

func lookup(path string) http.Handler {
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	mu.Lock()
	defer mu.Unlock()
	return handlers[path]
}

// Transport is an http.RoundTripper: requests to Host are served by the handler
// registered for their path, in the calling goroutine; others go to Fallback
// (http.DefaultTransport when nil).
type Transport struct {
	Fallback http.RoundTripper
	// Settle, when set, is called before the handler runs and after it returns
	// (agentio.InProcess.Settle).
	Settle func()
}

// RoundTrip implements http.RoundTripper.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != Host {
		fb := t.Fallback
		if fb == nil {
			fb = http.DefaultTransport
		}
		return fb.RoundTrip(req)
	}
	if err := req.Context().Err(); err != nil {
		// As the network transport: a cancelled request is not sent.
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	ctx := req.Context()
	if t.Settle != nil {
		ctx = context.WithValue(ctx, settleKey{}, t.Settle)
	}
	in := req.Clone(ctx)
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "memhttp"
	w := &writer{header: http.Header{}}
	if t.Settle != nil {
		t.Settle()
	}
	if h := lookup(req.URL.Path); h != nil {
		h.ServeHTTP(w, in)
	} else {
		http.NotFound(w, in)
	}
	if t.Settle != nil {
		t.Settle()
	}
	if req.Body != nil {
		req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		// The client gave up (timeout, cancellation) while the handler ran: as
		// on the network, it gets its error, not the answer.
		return nil, err
	}
	if w.code == 0 {
		w.code = http.StatusOK
	}
	body := w.body.Bytes()
	w.header.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status: strconv.Itoa(w.code) + " " + http.StatusText(w.code), StatusCode: w.code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.header, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}, nil
}

type settleKey struct{}

// Settle lets the harness catch up in the middle of an in-memory exchange (a
// handler calls it after recording the request, before it answers): it calls the
// Transport's Settle, if the request came through one that has it; otherwise it
// does nothing.
func Settle(ctx context.Context) {
	if f, ok := ctx.Value(settleKey{}).(func()); ok && f != nil {
		f()
	}
}

// writer is the handler's side of one in-memory exchange.
type writer struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *writer) Header() http.Header { return w.header }

func (w *writer) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *writer) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}
