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
)

// corpusLines calls f with every line of every .json/.jsonl file under roots
// (a .json file is one message), JSON or not.
func corpusLines(t *testing.T, roots []string, f func(name string, line []byte)) {
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
