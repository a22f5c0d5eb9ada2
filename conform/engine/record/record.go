package record

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// TimeLayout is the transcript's `at` format: RFC 3339, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Recorder writes a transcript/1 JSON-lines file (docs/transcript-format.md): every
// message both ways, the agent's other output, and the harness's own events.
// A nil *Recorder records nothing. It is safe for concurrent use.
type Recorder struct {
	mu       sync.Mutex
	w        io.Writer
	seq      int
	protocol string
	session  string
	err      error
}

// NewRecorder returns a recorder writing to w; protocol and session fill the
// optional fields of every record ("" leaves them out).
func NewRecorder(w io.Writer, protocol, session string) *Recorder {
	return &Recorder{w: w, protocol: protocol, session: session}
}

// record is one transcript/1 line; the field order is the documented one.
type record struct {
	Aopkit   string          `json:"aopkit"`
	Seq      int             `json:"seq"`
	At       string          `json:"at"`
	From     string          `json:"from"`
	Protocol string          `json:"protocol,omitempty"`
	Stream   string          `json:"stream,omitempty"`
	Session  string          `json:"session,omitempty"`
	Msg      json.RawMessage `json:"msg,omitempty"`
	Text     *string         `json:"text,omitempty"`
	Event    string          `json:"event,omitempty"`
	Detail   any             `json:"detail,omitempty"`
}

// Line records one line seen on a stream: as msg when it is JSON, else as text.
func (r *Recorder) Line(at time.Time, from, stream string, line []byte) {
	if r == nil {
		return
	}
	rec := record{From: from, Stream: stream}
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && json.Valid(trimmed) {
		rec.Msg = json.RawMessage(trimmed)
	} else {
		s := string(line)
		rec.Text = &s
	}
	r.write(at, rec)
}

// Event records an event of the harness itself (agent-start, agent-exit, signal,
// kill, timeout, scenario-end).
func (r *Recorder) Event(at time.Time, event string, detail any) {
	if r == nil {
		return
	}
	r.write(at, record{From: "harness", Event: event, Detail: detail})
}

func (r *Recorder) write(at time.Time, rec record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.seq++
	rec.Aopkit = "transcript/1"
	rec.Seq = r.seq
	rec.At = at.UTC().Format(TimeLayout)
	rec.Protocol = r.protocol
	rec.Session = r.session
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		// An invalid msg (cannot happen: it was validated) is kept as text.
		s := string(rec.Msg)
		rec.Msg, rec.Text = nil, &s
		buf.Reset()
		if err := enc.Encode(rec); err != nil {
			r.err = err
			return
		}
	}
	if _, err := r.w.Write(buf.Bytes()); err != nil {
		r.err = err
	}
}

// Err is the first write error.
func (r *Recorder) Err() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
