// Package ruledoc reads a protocol's rules file (rules.yaml, embedded in the
// protocol's package): the prose of its rules — title, spec section,
// explanation, a bad and a good example — by rule ID, kept as data beside the
// Go that checks them. A rule's value names what decides a verdict (ID,
// protocol, kinds, severity, Run); Rule fills in the rest from the file, so
// docs/rules.md, `aoplint rules` and the formats read one Rule as before.
package ruledoc

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/aopkit/aopkit/lint"
)

// entry is one rule's prose. A field the Go value sets (a text derived from a
// constant) is absent here: one source per field.
type entry struct {
	Title string `yaml:"title"`
	Spec  string `yaml:"spec"`
	Doc   string `yaml:"doc"`
	Bad   string `yaml:"bad"`
	Good  string `yaml:"good"`
}

// File is one protocol's rules file.
type File struct {
	name    string
	entries map[string]entry
	mu      sync.Mutex
	used    map[string]bool
}

var (
	filesMu sync.Mutex
	files   []*File
)

// Parse reads a rules file; name says which in a panic. The file is embedded
// in the binary, so a malformed one panics: the package's tests find it.
func Parse(name string, data []byte) *File {
	f := &File{name: name, used: map[string]bool{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f.entries); err != nil {
		panic(fmt.Sprintf("ruledoc: %s: %v", name, err))
	}
	filesMu.Lock()
	files = append(files, f)
	filesMu.Unlock()
	return f
}

// Rule returns r with the prose the file holds for r.ID. An ID the file does
// not hold, or a field that both r and the file set, panics.
func (f *File) Rule(r lint.Rule) *lint.Rule {
	e, ok := f.entries[r.ID]
	if !ok {
		panic(fmt.Sprintf("ruledoc: %s holds no rule %s", f.name, r.ID))
	}
	for _, fl := range []struct {
		name string
		dst  *string
		from string
	}{{"title", &r.Title, e.Title}, {"spec", &r.Spec, e.Spec}, {"doc", &r.Doc, e.Doc}, {"bad", &r.Bad, e.Bad}, {"good", &r.Good, e.Good}} {
		if fl.from == "" {
			continue
		}
		if *fl.dst != "" {
			panic(fmt.Sprintf("ruledoc: %s: the %s of %s is set in its Go value too", f.name, fl.name, r.ID))
		}
		*fl.dst = fl.from
	}
	f.mu.Lock()
	f.used[r.ID] = true
	f.mu.Unlock()
	return &r
}

// Unused lists the entries of every file parsed that no rule took ("file:
// ID"), sorted: a stale entry documents a rule that does not exist.
func Unused() []string {
	filesMu.Lock()
	defer filesMu.Unlock()
	var out []string
	for _, f := range files {
		f.mu.Lock()
		for id := range f.entries {
			if !f.used[id] {
				out = append(out, f.name+": "+id)
			}
		}
		f.mu.Unlock()
	}
	sort.Strings(out)
	return out
}
