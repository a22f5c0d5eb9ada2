package aoplintcmd

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint/output"
)

// outputSpec is one output of a run: a format, and a file ("" for standard
// output).
type outputSpec struct {
	Format string
	Path   string
}

func knownFormat(f string) bool {
	for _, k := range output.Formats {
		if k == f {
			return true
		}
	}
	return false
}

// outputsFrom reads the --output values (FORMAT or FORMAT=PATH; PATH - is
// standard output). Standard output gets format (--format, else the
// configuration's, else text) unless an --output takes it; both when --format was
// given (formatSet) is an error, as are two outputs to one file.
func outputsFrom(values []string, format string, formatSet bool) ([]outputSpec, error) {
	var outs []outputSpec
	seen := map[string]string{}
	stdout := false
	for _, v := range values {
		f, path, _ := strings.Cut(v, "=")
		if path == "-" {
			path = ""
		}
		if !knownFormat(f) {
			return nil, usageErr("unknown --output format %q: want FORMAT or FORMAT=PATH, FORMAT one of %s", f, strings.Join(output.Formats, ", "))
		}
		where := path
		if where == "" {
			where = "standard output"
			stdout = true
		}
		if prev, dup := seen[where]; dup {
			return nil, usageErr("--output %s and --output %s both write to %s", prev, v, where)
		}
		seen[where] = v
		outs = append(outs, outputSpec{Format: f, Path: path})
	}
	switch {
	case formatSet && stdout:
		return nil, usageErr("--format %s and an --output to standard output both write to standard output: drop one", format)
	case !stdout:
		outs = append([]outputSpec{{Format: format}}, outs...)
	}
	return outs, nil
}

// sink is one output being written: streamable formats file by file, the others
// from the whole report at the end. A file's output is kept in memory and
// written at the end (safefile.WriteFile: never through a symbolic link).
type sink struct {
	outputSpec
	w   io.Writer
	buf *bytes.Buffer
	st  *output.Stream
}

func openSinks(outs []outputSpec, stdout io.Writer, color bool) []*sink {
	var sinks []*sink
	for _, o := range outs {
		s := &sink{outputSpec: o, w: stdout}
		if o.Path != "" {
			s.buf = &bytes.Buffer{}
			s.w = s.buf
		}
		if output.Streamable(o.Format) {
			s.st = output.NewStream(s.w, o.Format)
			s.st.Color = o.Format == "text" && o.Path == "" && color
		}
		sinks = append(sinks, s)
	}
	return sinks
}

// flush writes a file output's bytes to its file.
func (s *sink) flush() error {
	if s.buf == nil {
		return nil
	}
	if err := safefile.WriteFile(s.Path, s.buf.Bytes(), 0o644, false); err != nil {
		return fmt.Errorf("--output %s=%s: %v", s.Format, s.Path, err)
	}
	return nil
}
