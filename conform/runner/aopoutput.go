package runner

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

var aopMarker = regexp.MustCompile(`^\s*\[AOP:([A-Z_]+)\]`)

// AOPOutputKey names a line of an aop-output report by its marker ("AOP:START").
func AOPOutputKey(r *conform.Record) string {
	if r.Text == nil {
		return ""
	}
	if m := aopMarker.FindStringSubmatch(*r.Text); m != nil {
		return "AOP:" + m[1]
	}
	return ""
}

// DetailsFile describes the file an aop-output report names.
type DetailsFile struct {
	Named  string `json:"named"`  // as written after [AOP:DETAILS_FILE]
	Path   string `json:"path"`   // relative to the scratch directory
	Inside bool   `json:"inside"` // inside the scratch directory
	Exists bool   `json:"exists"`
	JSON   bool   `json:"json"`
	Seq    int    `json:"seq"` // the file's transcript record
}

// driveAOPOutput sends the task line, closes stdin and, after the agent exits, reads
// the details file its report names (inside the scratch directory only).
func driveAOPOutput(h *H) error {
	task := h.Expand(h.sc.Task)
	a, err := h.Launch(task)
	if err != nil {
		return err
	}
	a.Send(task)
	a.CloseInput()
	var named string
	if err := a.Run(Handler{
		Key: AOPOutputKey,
		OnLine: func(a *Agent, r conform.Record) {
			if r.Key == "AOP:DETAILS_FILE" {
				rest := aopMarker.ReplaceAllString(textOf(&r), "")
				named = strings.TrimSpace(rest)
			}
		},
	}); err != nil {
		return err
	}
	if named == "" {
		return nil
	}
	df := DetailsFile{Named: named}
	if named != "none" {
		p := named
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.scratch, p)
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		rel, err := filepath.Rel(h.scratch, p)
		df.Inside = err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		if df.Inside {
			df.Path = filepath.ToSlash(rel)
			if f, err := os.Open(p); err == nil {
				b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
				f.Close()
				df.Exists = true
				rec := conform.Record{From: "agent", Stream: "file:" + df.Path, Attempt: a.n}
				if json.Valid(b) && isJSONObject(b) {
					df.JSON = true
					c, _ := compact(b)
					rec.Msg = c
				} else {
					t := toValidUTF8(b)
					rec.Text = &t
				}
				df.Seq = h.rec.add(rec).Seq
			}
		}
	}
	h.Fact("aopoutput.details", df)
	return nil
}
