package difftest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// corpusLines calls f with every line of every .json/.jsonl file under roots
// (a .json file is one message), JSON or not.
func corpusLines(t testing.TB, roots []string, f func(name string, line []byte)) {
	t.Helper()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl")) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !strings.HasSuffix(path, ".jsonl") {
				f(path, data)
				return nil
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
			for i := 1; sc.Scan(); i++ {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					f(fmt.Sprintf("%s:%d", path, i), append([]byte(nil), sc.Bytes()...))
				}
			}
			return sc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// unread lists the members of n that the typed value v names but did not take
// (a member of the JSON type of its field is always taken: lint/spec/wire).
func unread(n *jsonread.Node, v reflect.Value, ptr string) []string {
	if n == nil || n.Kind == jsonread.Null {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		if v.IsNil() {
			return []string{ptr}
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		return unread(n, v.Elem(), ptr)
	case reflect.Slice:
		var out []string
		for i, it := range n.Items {
			out = append(out, unread(it, v.Index(i), fmt.Sprintf("%s/%d", ptr, i))...)
		}
		return out
	case reflect.String:
		if !n.IsString() || n.Str != v.String() {
			return []string{ptr}
		}
	case reflect.Bool:
		if n.Kind != jsonread.Bool {
			return []string{ptr}
		}
	case reflect.Float64:
		if n.Kind != jsonread.Number {
			return []string{ptr}
		}
	case reflect.Struct:
		if n.Kind != jsonread.Object {
			return []string{ptr}
		}
		var out []string
		for _, f := range reflect.VisibleFields(v.Type()) {
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || !f.IsExported() || key == "" || key == "-" {
				continue
			}
			out = append(out, unread(n.Get(key), v.FieldByIndex(f.Index), ptr+"/"+jsonread.EscapeToken(key))...)
		}
		return out
	}
	return nil
}

// TestAOP2WireAgreesWithLinter: on every line of the aop2 fixtures and the
// spec corpus, lint/spec/aop2's decoder and aoplint agree. A line the decoder
// refuses is one aoplint cannot read as a JSON object (a GEN-JSON or GEN-DETECT
// finding), and the other way round; a message aoplint finds no error in is
// read completely: every member its typed view (TASK, RESPONSE or EVENT by
// message_type) names is taken, none left zero by a JSON type the struct does
// not expect.
func TestAOP2WireAgreesWithLinter(t *testing.T) {
	decoded, clean := 0, 0
	corpusLines(t, []string{"../../fixtures/aop2", "../../testdata/speccorpus/aop2"}, func(name string, line []byte) {
		h, err := aop2spec.DecodeHeader(line)
		res := linter.LintBytes("message.json", line, linter.Options{Protocol: "aop2"})
		var unreadable, errs []string
		for _, d := range res.Diagnostics {
			if d.Severity != lint.Error {
				continue
			}
			errs = append(errs, d.Rule)
			if strings.HasPrefix(d.Rule, "GEN-JSON") || strings.HasPrefix(d.Rule, "GEN-DETECT") {
				unreadable = append(unreadable, d.Rule)
			}
		}
		switch {
		case err != nil && len(unreadable) == 0:
			t.Errorf("%s: the decoder refuses it (%v), aoplint reads it (errors %v)", name, err, errs)
		case err == nil && len(unreadable) > 0:
			t.Errorf("%s: the decoder reads it, aoplint does not (%v)", name, unreadable)
		}
		if err != nil {
			return
		}
		decoded++
		if len(errs) > 0 {
			return
		}
		clean++
		root, _, perr := jsonread.Parse(line)
		if perr != nil {
			t.Fatalf("%s: %v", name, perr)
		}
		var view any
		switch h.MessageType {
		case "TASK":
			view = h.AsTask()
		case "RESPONSE":
			view = h.AsResponse()
		default:
			view = h.AsEvent()
		}
		if miss := unread(root, reflect.ValueOf(view), ""); len(miss) > 0 {
			t.Errorf("%s: aoplint finds no error, but the typed %s leaves %v unread", name, h.MessageType, miss)
		}
	})
	if decoded < 100 || clean < 20 {
		t.Errorf("only %d messages decoded, %d without a lint error: is the corpus there?", decoded, clean)
	}
	t.Logf("%d lines decoded, %d of them without a lint error read completely", decoded, clean)
}

// TestAOPOutputWireAgreesWithLinter: on every JSON file of the aop-output
// fixtures and the spec corpus (details files and the binding's task lines,
// task_input*), lint/spec/aopoutput's decoders and aoplint agree. The details
// decoder refuses exactly the files aoplint cannot read as JSON (GEN-JSON,
// GEN-DETECT), the
// task-line decoder refuses only lines aoplint reports an error on, and a file
// aoplint finds no error in decodes without error and is read completely.
func TestAOPOutputWireAgreesWithLinter(t *testing.T) {
	files, clean := 0, 0
	corpusLines(t, []string{"../../fixtures/aop-output", "../../testdata/speccorpus/aop-output"}, func(name string, data []byte) {
		if strings.HasSuffix(name, ".jsonl") || strings.Contains(name, ":") {
			return // the reports are text; no JSON lines here
		}
		files++
		res := linter.LintBytes("message.json", data, linter.Options{Protocol: "aop-output"})
		var errs []string
		unreadable := false
		for _, d := range res.Diagnostics {
			if d.Severity == lint.Error {
				errs = append(errs, d.Rule)
				unreadable = unreadable || strings.HasPrefix(d.Rule, "GEN-JSON") || strings.HasPrefix(d.Rule, "GEN-DETECT")
			}
		}
		var view any
		var err error
		if strings.Contains(name, "task_input") {
			var tl spec.TaskLine
			tl, err = spec.DecodeTaskLine(data)
			view = &tl
			if err != nil && len(errs) == 0 {
				t.Errorf("%s: the task-line decoder refuses it (%v), aoplint finds no error", name, err)
			}
		} else {
			view, err = spec.DecodeDetails(data)
			if (err != nil) != unreadable {
				t.Errorf("%s: the details decoder says %v, aoplint's JSON errors %v", name, err, errs)
			}
		}
		if err != nil || len(errs) > 0 {
			return
		}
		clean++
		root, _, perr := jsonread.Parse(data)
		if perr != nil {
			t.Fatalf("%s: %v", name, perr)
		}
		if miss := unread(root, reflect.ValueOf(view), ""); len(miss) > 0 {
			t.Errorf("%s: aoplint finds no error, but the typed view leaves %v unread", name, miss)
		}
	})
	if files < 20 || clean < 8 {
		t.Errorf("only %d files, %d without a lint error: is the corpus there?", files, clean)
	}
	t.Logf("%d files, %d without a lint error read completely", files, clean)
}
