package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
)

// recorder appends transcript records: in memory for the checks and, streamed
// and flushed one by one, to the scenario's JSONL file. It is the one writer of transcript/1
// (docs/transcript-format.md): the harness, the engines and their tests all record
// through it.
type recorder struct {
	mu       sync.Mutex
	protocol string
	scenario string
	sess     *conform.Session
	w        *bufio.Writer
	err      error
}

func newRecorder(w io.Writer, protocol string, sess *conform.Session) *recorder {
	if w == nil {
		w = io.Discard
	}
	return &recorder{protocol: protocol, scenario: sess.Scenario.ID, sess: sess, w: bufio.NewWriterSize(w, 64*1024)}
}

func (r *recorder) add(rec conform.Record) conform.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Aopkit = conform.TranscriptVersion
	rec.Seq = len(r.sess.Records) + 1
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	rec.At = rec.Time.UTC().Format(conform.TimeFormat)
	if rec.Protocol == "" && rec.From != conform.ActorHarness {
		rec.Protocol = r.protocol
	}
	if rec.Session == "" && rec.Attempt > 0 {
		rec.Session = fmt.Sprintf("%s#%d", r.scenario, rec.Attempt)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		// Cannot happen for the types above; keep the transcript honest anyway.
		t := fmt.Sprintf("aopconform: could not encode record: %v", err)
		rec.Msg, rec.Text = nil, &t
		b, _ = json.Marshal(rec)
	}
	if r.err == nil {
		// Flushed record by record: a harness killed mid-run (SIGKILL, a
		// crash) leaves every record so far in the file, readable evidence.
		if _, err := r.w.Write(append(b, '\n')); err != nil {
			r.err = err
		} else if err := r.w.Flush(); err != nil {
			r.err = err
		}
	}
	r.sess.Records = append(r.sess.Records, rec)
	return rec
}

// event records a harness event.
func (r *recorder) event(attempt int, name conform.Event, detail conform.Detail) {
	r.add(conform.Record{From: conform.ActorHarness, Event: name, Detail: detail, Attempt: attempt})
}

func (r *recorder) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.w.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}

// lineRecord turns one line of agent output into a record: a JSON object becomes
// msg, anything else text.
func lineRecord(l agentio.Line, attempt int) conform.Record {
	rec := conform.Record{From: conform.ActorAgent, Stream: l.Stream, Time: l.At, Attempt: attempt, Truncated: l.Truncated}
	data := l.Data
	if l.Stream == "stdout" && !l.Truncated && IsJSONObject(data) {
		rec.Msg = append(json.RawMessage(nil), data...)
		return rec
	}
	t := ToValidUTF8(data)
	rec.Text = &t
	if l.Truncated {
		rec.Detail = conform.Details(conform.KeyTruncated.Is(true))
	}
	return rec
}

func IsJSONObject(b []byte) bool {
	s := strings.TrimSpace(string(b))
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

func ToValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// TextOf returns a record's text ("" when it has none).
func TextOf(r *conform.Record) string {
	if r.Text == nil {
		return ""
	}
	return *r.Text
}
