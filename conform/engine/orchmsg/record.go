package orchmsg

import (
	"io"

	"github.com/aopkit/aopkit/conform/engine/record"
)

// Recorder writes the engine's transcript/1 records (shared with the other engines:
// conform/engine/record).
type Recorder = record.Recorder

// NewRecorder returns a recorder writing to w; see record.NewRecorder.
func NewRecorder(w io.Writer, protocol, session string) *Recorder {
	return record.NewRecorder(w, protocol, session)
}

// TimeLayout is the transcript's `at` format.
const TimeLayout = record.TimeLayout
