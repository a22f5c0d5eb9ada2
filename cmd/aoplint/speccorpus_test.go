package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// specCorpusDir holds messages and transcripts written from the spec texts alone
// (not from fixtures or the linter), with the verdict each spec demands.
const specCorpusDir = "../../testdata/speccorpus"

// specCase is one EXPECT.json entry: the exit code and detected protocol the spec
// demands; for a failing sequence case, the line of the offending message and the
// line of the earlier message its diagnostic must name.
type specCase struct {
	Exit     int    `json:"exit"`
	Protocol string `json:"protocol"`
	Line     int    `json:"line,omitempty"`
	Rel      int    `json:"rel,omitempty"`
	Note     string `json:"note,omitempty"`
	// Args are extra flags before the path, such as ["--task-type", "code"].
	Args []string `json:"args,omitempty"`
}

type specOutput struct {
	Files []struct {
		Path        string `json:"path"`
		Protocol    string `json:"protocol"`
		Diagnostics []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Line     int    `json:"line"`
			Related  []struct {
				Line int `json:"line"`
			} `json:"related"`
		} `json:"diagnostics"`
	} `json:"files"`
}

func TestSpecCorpus(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(specCorpusDir, "EXPECT.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]specCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("EXPECT.json lists no cases")
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := cases[name]
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(specCorpusDir, filepath.FromSlash(name))
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"aoplint", "--format", "json"}, want.Args...)
			code := run(append(args, path), strings.NewReader(""), &stdout, &stderr)
			var out specOutput
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
			}
			// A file of an AOF data directory is linted with its directory: the
			// spec's verdict is the file's own, its entry of the output.
			if !isDir(path) && len(out.Files) > 1 {
				own := out.Files[:0]
				for _, f := range out.Files {
					if f.Path == path {
						own = append(own, f)
					}
				}
				out.Files = own
				code = 0
				for _, f := range out.Files {
					for _, d := range f.Diagnostics {
						if d.Severity == "error" {
							code = 1
						}
					}
				}
			}
			if code != want.Exit {
				t.Errorf("exit %d, want %d (%s)\n%s%s", code, want.Exit, want.Note, stdout.String(), stderr.String())
			}
			// A case is one file, or a directory (an AOF data directory) whose
			// every file must be detected as the protocol.
			if len(out.Files) == 0 || (len(out.Files) > 1 && !isDir(path)) {
				t.Fatalf("%d files in the output\n%s", len(out.Files), stdout.String())
			}
			for _, f := range out.Files {
				if f.Protocol != want.Protocol {
					t.Errorf("%s: protocol %q, want %q", f.Path, f.Protocol, want.Protocol)
				}
			}
			if want.Line == 0 {
				return
			}
			for _, f := range out.Files {
				for _, d := range f.Diagnostics {
					if d.Severity != "error" || d.Line != want.Line {
						continue
					}
					if want.Rel == 0 {
						return
					}
					for _, r := range d.Related {
						if r.Line == want.Rel {
							return
						}
					}
				}
			}
			t.Errorf("no error at line %d naming line %d\n%s", want.Line, want.Rel, stdout.String())
		})
	}
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
