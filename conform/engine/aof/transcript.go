package aof

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Record is one transcript/1 line (docs/transcript-format.md).
type Record struct {
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
	Detail   map[string]any  `json:"detail,omitempty"`
}

// Recorder writes transcript/1 records in order and keeps them.
type Recorder struct {
	W        io.Writer // may be nil
	Protocol string
	Session  string
	mu       sync.Mutex
	records  []Record
}

// Add stamps seq, protocol and session onto r and writes it.
func (rec *Recorder) Add(at time.Time, r Record) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	r.Aopkit = "transcript/1"
	r.Seq = len(rec.records) + 1
	r.At = FormatTime(at)
	if r.Protocol == "" && r.From != "harness" {
		r.Protocol = rec.Protocol
	}
	if r.Session == "" {
		r.Session = rec.Session
	}
	rec.records = append(rec.records, r)
	if rec.W != nil {
		if data, err := json.Marshal(r); err == nil {
			rec.W.Write(append(data, '\n'))
		}
	}
}

// Data records one line or file: as msg when it is JSON, as text otherwise.
func (rec *Recorder) Data(at time.Time, from, stream string, data []byte) {
	r := Record{From: from, Stream: stream}
	if json.Valid(data) && len(data) > 0 && (data[0] == '{' || data[0] == '[') {
		r.Msg = json.RawMessage(data)
	} else {
		s := string(data)
		r.Text = &s
	}
	rec.Add(at, r)
}

// Harness records an event of the harness itself.
func (rec *Recorder) Harness(at time.Time, event string, detail map[string]any) {
	rec.Add(at, Record{From: "harness", Event: event, Detail: detail})
}

// Records returns a copy of the records so far.
func (rec *Recorder) Records() []Record {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Record(nil), rec.records...)
}
