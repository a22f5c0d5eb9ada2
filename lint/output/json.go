package output

import (
	"encoding/json"
	"io"

	"github.com/aopkit/aopkit/lint/linter"
)

type jsonReport struct {
	Files   []linter.FileResult `json:"files"`
	Summary Summary             `json:"summary"`
}

// JSON prints the stable machine-readable shape:
//
//	{"files":[{"path":…,"protocol":…,"kind":…,"messages":1,"diagnostics":[{"rule":…,"severity":…,"message":…,"line":…,"column":…,"pointer":…,"spec":…}]}],"summary":{…}}
func JSON(w io.Writer, r *Report) error {
	files := r.Files
	if files == nil {
		files = []linter.FileResult{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonReport{Files: files, Summary: r.Summarize()})
}
