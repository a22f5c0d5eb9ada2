package aop2_test

// The sequence checkers keep strings of a message past it: each must be their
// own copy, so that no line is kept alive by a session's state (issue 11), and
// so that a driver reusing lines' buffers would lose nothing. This test gives
// every message a tree whose strings point into one scratch buffer, overwritten
// after the message was observed, and requires the very diagnostics of a run
// over trees of their own.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/linter"
)

// lendStrings points every string of the tree (values, keys) into buf, which
// the caller overwrites after use, as the driver reuses a line's buffer.
func lendStrings(n *jsonread.Node, buf *[]byte) {
	if n == nil {
		return
	}
	lend := func(s string) string {
		if s == "" {
			return s
		}
		start := len(*buf)
		*buf = append(*buf, s...)
		return unsafe.String(&(*buf)[start], len(s))
	}
	n.Str = lend(n.Str)
	for i := range n.Members {
		n.Members[i].Key = lend(n.Members[i].Key)
		lendStrings(n.Members[i].Value, buf)
	}
	for _, it := range n.Items {
		lendStrings(it, buf)
	}
}

// strBytes sizes a tree's strings.
func strBytes(n *jsonread.Node) int {
	if n == nil {
		return 0
	}
	size := len(n.Str)
	for _, m := range n.Members {
		size += len(m.Key) + strBytes(m.Value)
	}
	for _, it := range n.Items {
		size += strBytes(it)
	}
	return size
}

// runGroup runs the sequence group over lines as the driver does (one checker
// per session, finished at its end) and renders every diagnostic; poison
// lends each tree's strings from a buffer overwritten after each message.
func runGroup(t *testing.T, lines [][]byte, poison bool) []string {
	t.Helper()
	var out []string
	var p lint.Pass
	collect := func() {
		for _, d := range p.Diagnostics() {
			out = append(out, fmt.Sprintf("%d:%d %s %s %s %q %+v", d.Line, d.Column, d.Rule, d.Severity, d.Pointer, d.Message, d.Related))
		}
	}
	sessions := map[string]bool{}
	var msgs []*lint.Message
	bufs := map[*lint.Message][]byte{}
	for i, l := range lines {
		m := benchMessage(i, append([]byte(nil), l...), sessions)
		if m == nil {
			continue
		}
		if poison {
			buf := make([]byte, 0, strBytes(m.Root))
			lendStrings(m.Root, &buf)
			bufs[m] = buf
		}
		msgs = append(msgs, m)
	}
	runSessions(&p, msgs, func(m *lint.Message) {
		buf := bufs[m]
		for j := range buf {
			buf[j] = '#' // the line's buffer, reused
		}
	}, collect)
	return out
}

func TestSequenceOwnsWhatItKeeps(t *testing.T) {
	inputs := map[string][][]byte{}
	var gen bytes.Buffer
	if _, err := transcriptgen.Write(&gen, transcriptgen.Config{Seed: 7, Messages: 3000, InvalidEvery: 7, Protocols: []string{"aop2"}}); err != nil {
		t.Fatal(err)
	}
	inputs["generated"] = bytes.Split(gen.Bytes(), []byte("\n"))
	files, _ := filepath.Glob("../../fixtures/aop2/*/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no AOP2 fixture")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<20), linter.MaxMessage)
		for sc.Scan() {
			inputs[f] = append(inputs[f], append([]byte(nil), sc.Bytes()...))
		}
	}
	total := 0
	for name, lines := range inputs {
		own, lent := runGroup(t, lines, false), runGroup(t, lines, true)
		total += len(own)
		if strings.Join(own, "\n") != strings.Join(lent, "\n") {
			for i := range max(len(own), len(lent)) {
				var a, b string
				if i < len(own) {
					a = own[i]
				}
				if i < len(lent) {
					b = lent[i]
				}
				if a != b {
					t.Errorf("%s: diagnostic %d differs once the lines' buffers are reused:\n own: %s\nlent: %s", name, i, a, b)
					break
				}
			}
		}
	}
	if total < 20 {
		t.Fatalf("only %d diagnostics over the inputs: the comparison proves little", total)
	}
}
