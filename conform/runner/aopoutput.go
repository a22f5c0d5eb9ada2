package runner

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/aopkit/aopkit/conform/harness"

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
func driveAOPOutput(h *harness.H) error {
	task := h.Expand(h.Scenario().Task)
	a, err := h.Launch(task)
	if err != nil {
		return err
	}
	a.Send(task)
	a.CloseInput()
	var named string
	var block []conform.Record // the report being collected, [AOP:START] .. [AOP:END]
	cutOff := false            // the final flush of a report the harness stopped mid-way
	flush := func() []conform.Record {
		if len(block) == 0 {
			return nil
		}
		lines := make([]string, len(block))
		for i := range block {
			lines[i] = harness.TextOf(&block[i])
		}
		text := strings.Join(lines, "\n")
		r := block[0]
		r.Text, r.Msg, r.Key, r.Detail = &text, nil, "AOP:REPORT", nil
		if len(block) > 1 {
			r.Detail = map[string]any{"lines": len(block)}
		}
		if cutOff {
			if r.Detail == nil {
				r.Detail = map[string]any{}
			}
			r.Detail["cut_off"] = true
		}
		block = nil
		return []conform.Record{r}
	}
	if err := a.Run(harness.Handler{
		Key: AOPOutputKey,
		// The report block is one transcript record (docs/transcript-format.md), so
		// aoplint sees the whole report.
		Collect: func(r conform.Record, final bool) []conform.Record {
			if final {
				cutOff = !a.Attempt().Terminated.IsZero() || !a.Attempt().Killed.IsZero()
				return flush()
			}
			if r.Stream != "stdout" {
				return []conform.Record{r}
			}
			if r.Msg != nil {
				t := string(r.Msg)
				r.Text, r.Msg = &t, nil
			}
			switch {
			case r.Key == "AOP:START":
				out := flush()
				block = append(block, r)
				return out
			case len(block) > 0:
				block = append(block, r)
				if r.Key == "AOP:END" {
					return flush()
				}
				return nil
			}
			return []conform.Record{r}
		},
		OnLine: func(a *harness.Agent, r conform.Record) {
			for _, line := range strings.Split(harness.TextOf(&r), "\n") {
				if m := aopMarker.FindStringSubmatch(line); m != nil && m[1] == "DETAILS_FILE" {
					named = strings.TrimSpace(aopMarker.ReplaceAllString(line, ""))
				}
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
			p = filepath.Join(h.Scratch(), p)
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		rel, err := filepath.Rel(h.Scratch(), p)
		df.Inside = err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		if df.Inside {
			df.Path = filepath.ToSlash(rel)
			if f, err := os.Open(p); err == nil {
				b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
				f.Close()
				df.Exists = true
				rec := conform.Record{From: "agent", Stream: "file:" + df.Path, Attempt: a.N()}
				if json.Valid(b) && harness.IsJSONObject(b) {
					df.JSON = true
					c, _ := harness.Compact(b)
					rec.Msg = c
				} else {
					t := harness.ToValidUTF8(b)
					rec.Text = &t
				}
				df.Seq = h.Record(rec).Seq
			}
		}
	}
	h.Fact("aopoutput.details", df)
	return nil
}
