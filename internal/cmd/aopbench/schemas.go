package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/schemas"
)

// exportSchemas writes every embedded schema under dir (dir/<protocol>/<file>): the
// same bytes `aoplint schema` prints.
func exportSchemas(dir string) error {
	return fs.WalkDir(schemas.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(schemas.FS, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// walkRefs calls f on every "$ref" of a decoded schema and stores what it returns.
func walkRefs(v any, f func(string) string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				v[k] = f(s)
				continue
			}
			walkRefs(x, f)
		}
	case []any:
		for _, x := range v {
			walkRefs(x, f)
		}
	}
}

// bundle returns file as one self-contained schema: every sibling file it refers
// to moves under "definitions" (as "<file name with _ for .>") and the references
// are rewritten to point there. Python's jsonschema CLI needs it: it would fetch a
// relative reference from the $id's host.
func bundle(file string) ([]byte, error) {
	load := func(f string) (map[string]any, error) {
		data, err := fs.ReadFile(schemas.FS, f)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		return m, json.Unmarshal(data, &m)
	}
	key := func(f string) string { return strings.ReplaceAll(path.Base(f), ".", "_") }
	rewrite := func(from string, inlined bool) func(string) string {
		return func(ref string) string {
			target, frag, _ := strings.Cut(ref, "#")
			if target == "" {
				if inlined {
					return "#/definitions/" + key(from) + frag
				}
				return ref
			}
			return "#/definitions/" + key(path.Join(path.Dir(from), target)) + frag
		}
	}
	main, err := load(file)
	if err != nil {
		return nil, err
	}
	others, err := schema.Refs(file)
	if err != nil {
		return nil, err
	}
	walkRefs(main, rewrite(file, false))
	defs, _ := main["definitions"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	for _, o := range others {
		s, err := load(o)
		if err != nil {
			return nil, err
		}
		delete(s, "$id")
		delete(s, "$schema")
		walkRefs(s, rewrite(o, true))
		defs[key(o)] = s
	}
	main["definitions"] = defs
	return json.MarshalIndent(main, "", "  ")
}

// signature is how .ci/bench/ajv-lines.js picks a schema for a message, from a
// few discriminating members; keep the two in step.
func signature(m *jsonread.Node) string {
	if m == nil || m.Kind != jsonread.Object {
		return ""
	}
	str := func(n *jsonread.Node) string { return n.String() }
	switch {
	case m.Get("aop_version") != nil:
		s := "aop2|" + str(m.Get("message_type"))
		if str(m.Get("message_type")) == "EVENT" {
			s += "|" + str(m.Get("event"))
		}
		return s
	case m.Get("jsonrpc") != nil:
		switch {
		case m.Get("method") != nil:
			return "aos|request|" + str(m.Get("method"))
		case m.Get("error") != nil:
			return "aos|error"
		case m.Get("result") != nil && m.Get("result").Get("status") != nil:
			return "aos|ping-result"
		}
		return "aos|result"
	case str(m.Get("protocol")) == "aof":
		return "aof|" + str(m.Get("type"))
	case m.Get("type").IsString():
		return "orchmsg|" + str(m.Get("type"))
	}
	return ""
}

// schemaMap reads the transcript's first lines and maps every message signature to
// the $id of the schema aoplint's own detection picks for it.
func schemaMap(transcript string, maxLines int) (map[string]string, error) {
	f, err := os.Open(transcript)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 0; sc.Scan() && n < maxLines; n++ {
		line := bytes.TrimPrefix(sc.Bytes(), []byte("AOF/1 "))
		root, _, err := jsonread.Parse(line)
		if err != nil || root == nil {
			continue
		}
		if root.Get("aopkit") != nil {
			root = root.Get("msg")
		}
		sig := signature(root)
		if sig == "" {
			continue
		}
		if _, ok := out[sig]; ok {
			continue
		}
		id, err := schemaFor(root)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sig, err)
		}
		if id != "" {
			out[sig] = id
		}
	}
	return out, sc.Err()
}

// schemaFor runs aoplint's protocol detection on a message and returns the $id of
// the schema of its kind.
func schemaFor(root *jsonread.Node) (string, error) {
	var best *lint.Protocol
	kind, conf := "", 0
	for _, p := range lint.Protocols() {
		if p.Detect == nil {
			continue
		}
		if k, _, c := p.Detect(root, ""); c > conf {
			best, kind, conf = p, k, c
		}
	}
	if best == nil || best.Schema == nil {
		return "", nil
	}
	file := best.Schema(kind)
	if file == "" {
		return "", nil
	}
	data, err := fs.ReadFile(schemas.FS, file)
	if err != nil {
		return "", err
	}
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", err
	}
	if head.ID == "" {
		head.ID = schemas.BaseURL + file
	}
	return head.ID, nil
}
