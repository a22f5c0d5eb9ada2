package aopoutput

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/internal/safefile"
)

// MaxDetails bounds the bytes of a details file the parent reads (and records).
const MaxDetails = 1 << 20

// Details describes the details file a report names, as the parent found it
// (the fact conform.FactAOPOutputDetails).
type Details = conform.AOPOutputDetails

// Resolve resolves the path a report names against the scratch directory: a
// relative path is inside it, an absolute one must lead there, and symbolic links
// are followed, so that no name (.., an absolute path elsewhere, a link out) leads
// the parent outside. real is the resolved path, rel the path relative to the
// scratch directory.
func Resolve(scratch, named string) (real, rel string, inside, exists bool) {
	root := scratch
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	p := named
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p, exists = r, true
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return p, "", false, exists
	}
	if exists {
		fi, err := os.Stat(p)
		exists = err == nil && fi.Mode().IsRegular()
	}
	return p, filepath.ToSlash(rel), true, exists
}

// LoadDetails reads the details file a report names ("none": no file) from
// inside the scratch directory and records it in the transcript (stream
// "file:PATH", as msg when it is a .json file holding a JSON object, else as
// text). A path that leads
// outside is never read (the engine fault follow-details-path reads it).
func LoadDetails(h *harness.H, attempt int, named string) Details {
	df := Details{Named: named}
	if named == "none" {
		return df
	}
	real, rel, inside, exists := Resolve(h.Scratch(), named)
	df.Inside = inside
	if !inside && h.EngineFault() == FaultFollowDetailsPath && exists {
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() {
			rel = filepath.ToSlash(named)
			inside = true // followed anyway: the fault
		}
	}
	if !inside {
		return df
	}
	df.Path = rel
	// Regular files only, never waited on: a FIFO or a device the agent named
	// (or swapped in since Resolve looked) is refused, and the agent judged
	// for it (harness.H.Refused).
	f, err := safefile.Open(real, 0)
	if err != nil {
		var se *safefile.Error
		if errors.As(err, &se) {
			h.Refused(func() int { return attempt })(real, strings.TrimPrefix(se.Error(), se.Path+": "))
		}
		return df
	}
	b, _ := io.ReadAll(io.LimitReader(f, MaxDetails))
	f.Close()
	df.Exists = true
	df.Content = b
	rec := conform.Record{From: conform.ActorAgent, Stream: "file:" + df.Path, Attempt: attempt}
	// Only a .json details file is JSON (docs/bindings.md "aop-output"): the
	// spec's table puts details in Markdown, diffs and logs too, whatever their
	// bytes look like.
	if strings.HasSuffix(strings.ToLower(df.Path), ".json") && json.Valid(b) && harness.IsJSONObject(b) {
		df.JSON = true
		rec.Msg, _ = harness.Compact(b)
	} else {
		t := harness.ToValidUTF8(b)
		rec.Text = &t
	}
	df.Seq = h.Record(rec).Seq
	return df
}
