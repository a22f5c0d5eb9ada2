// Package prototest holds what the tests of every protocol's rule package run
// (issue 11): Retention proves that its sequence checkers own what they keep,
// and BenchTranscript measures its cost per message.
//
// The driver reuses a message's tree and the Message itself for later lines, so
// a checker keeps neither; the strings of the tree point into the message's
// line and keep the whole line alive, so what a checker keeps of them is a copy
// (lint.Message's ownership note). Check parses every line with jsonread's
// ParseShared into a buffer of its own (the tree's strings point into it, as
// they point into the driver's line), shows the messages to the protocol's
// sequence checkers in order, and then walks everything reachable from the
// checkers: a string whose bytes lie in one of the line buffers, or a tree node,
// is a finding.
package prototest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/isotime"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Check runs protocol's sequence checkers over lines (bare JSON messages and
// transcript/1 records) and fails t for every string or node of a line that a
// checker still holds once every line was observed, and again after Finish.
func Check(t testing.TB, protocol string, lines [][]byte) {
	t.Helper()
	proto := lint.LookupProtocol(protocol)
	if proto == nil {
		t.Fatalf("protocol %q is not registered", protocol)
	}
	var checkers []lint.Checker
	var rules []*lint.Rule
	groups := map[string]bool{}
	for _, r := range lint.Rules() {
		if r.NewChecker == nil || r.Retired || r.Protocol != protocol {
			continue
		}
		if r.Group != "" {
			if groups[r.Group] {
				continue
			}
			groups[r.Group] = true
		}
		checkers, rules = append(checkers, r.NewChecker()), append(rules, r)
	}
	if len(checkers) == 0 {
		t.Fatalf("protocol %q has no sequence rule", protocol)
	}
	var bufs [][]byte
	observed := 0
	for i, line := range lines {
		buf := bytes.Clone(bytes.TrimSpace(line))
		if len(buf) == 0 {
			continue
		}
		var ar jsonread.Arena // a fresh arena per line: its nodes are the line's
		root, _, err := ar.ParseShared(buf)
		if err != nil || root == nil {
			continue
		}
		bufs = append(bufs, buf)
		m := message(proto, root, buf, i)
		if m == nil {
			continue
		}
		observed++
		for j, c := range checkers {
			c.Observe(lint.NewPass(rules[j], m))
		}
	}
	if observed == 0 {
		t.Fatalf("no %s message among %d lines", protocol, len(lines))
	}
	check := func(when string) {
		t.Helper()
		for j, c := range checkers {
			w := walker{bufs: bufs, seen: map[visit]bool{}}
			w.walk(reflect.ValueOf(c), rules[j].ID)
			for _, f := range w.found {
				t.Errorf("%s: %s (%s)", when, f, protocol)
			}
		}
	}
	check("after the last message")
	for j, c := range checkers {
		c.Finish(lint.NewPass(rules[j], nil))
	}
	check("after Finish")
}

// message makes the lint.Message of one line as the driver would: a
// transcript/1 record's msg (or its harness event), or the bare message; nil
// when the protocol does not claim it.
func message(proto *lint.Protocol, root *jsonread.Node, buf []byte, i int) *lint.Message {
	m := &lint.Message{Path: "retain.jsonl", Raw: buf, Pos: lint.NewLineIndex(buf, i+1, 1), Index: i, Root: root}
	if root.Get("aopkit").String() == "transcript/1" {
		m.From, m.Session, m.Stream = root.Get("from").String(), root.Get("session").String(), root.Get("stream").String()
		if at, ok := isotime.ParseRFC3339(root.Get("at").String()); ok {
			m.At = at
		}
		if ev := root.Get("event"); ev.IsString() {
			m.From, m.Kind = "harness", "harness:"+ev.Str
			return m // shown to every checker, as the driver does
		}
		msg := root.Get("msg")
		if msg == nil {
			return nil
		}
		// Raw is the msg's own text, as the driver gives it.
		m.Root, m.Raw, m.RawAt = msg, buf[msg.Offset:msg.End], msg.Offset
	}
	kind, dialect, conf := proto.Detect(m.Root, "")
	if conf == 0 {
		return nil
	}
	m.Protocol, m.Kind, m.Dialect = proto.ID, kind, dialect
	return m
}

type visit struct {
	p unsafe.Pointer
	t reflect.Type
}

// walker finds the strings and nodes of the line buffers reachable from a value.
type walker struct {
	bufs  [][]byte
	seen  map[visit]bool
	found []string
}

var nodeType = reflect.TypeOf(jsonread.Node{})

func (w *walker) inLine(p unsafe.Pointer, n int) bool {
	if n == 0 || p == nil {
		return false
	}
	for _, b := range w.bufs {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if a := uintptr(p); a >= lo && a < lo+uintptr(cap(b)) {
			return true
		}
	}
	return false
}

// first reports whether the walk reaches the value of type t at p for the first
// time, and marks it reached.
func (w *walker) first(p unsafe.Pointer, t reflect.Type) bool {
	k := visit{p, t}
	if w.seen[k] {
		return false
	}
	w.seen[k] = true
	return true
}

func (w *walker) walk(v reflect.Value, path string) {
	if len(w.found) >= 20 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if w.inLine(unsafe.Pointer(unsafe.StringData(s)), len(s)) {
			w.found = append(w.found, fmt.Sprintf("%s keeps %q, a string of the line", path, s))
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		t := v.Type().Elem()
		if t.PkgPath() == "sync" || t == reflect.TypeOf(lint.Rule{}) || t == reflect.TypeOf(time.Location{}) {
			return // pools, the rules' registry, zones: not the checker's state
		}
		if !w.first(v.UnsafePointer(), t) {
			return
		}
		if t == nodeType {
			w.found = append(w.found, path+" keeps a node of a message's tree")
			return
		}
		w.walk(v.Elem(), path)
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path)
		}
	case reflect.Struct:
		if v.Type().PkgPath() == "sync" {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			w.walk(v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if !w.first(v.UnsafePointer(), v.Type()) {
			return
		}
		// up to the capacity: what a reused slice still holds past its length counts too
		full := v.Slice3(0, v.Cap(), v.Cap())
		for i := 0; i < full.Len(); i++ {
			w.walk(full.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		if !w.first(v.UnsafePointer(), v.Type()) {
			return
		}
		it := v.MapRange()
		for it.Next() {
			key := it.Key()
			name := path + "[key]"
			if key.Kind() == reflect.String {
				name = path + "[" + strings.ReplaceAll(key.String(), "\x00", "·") + "]"
			}
			w.walk(key, name)
			w.walk(it.Value(), name)
		}
	}
}

// Lines returns the lines of every .jsonl file under dir and every .json file
// as one line each: the protocol's fixtures.
func Lines(t testing.TB, dir string) [][]byte {
	t.Helper()
	var out [][]byte
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, bytes.Split(data, []byte("\n"))...)
		case ".json":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out = append(out, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
