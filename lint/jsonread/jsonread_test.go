package jsonread

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		code string // "" ok, else SyntaxError code
		prob string // a Problem code expected
	}{
		{`{"a":1}`, "", ""},
		{`  [1, 2.5e3, -0, "x\u00e9\ud83d\ude00", true, false, null]  `, "", ""},
		{`{"a":1,"a":2}`, "", "duplicate-key"},
		{"\xEF\xBB\xBF{}", "", "bom"},
		{``, "empty", ""},
		{`{"a":1} {}`, "trailing", ""},
		{`{"a":}`, "syntax", ""},
		{`{"a":1,}`, "syntax", ""},
		{`[1,]`, "syntax", ""},
		{`01`, "trailing", ""},
		{`"\x"`, "syntax", ""},
		{"\"caf\xe9\"", "utf8", ""},
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), "depth", ""},
		{`{"a" 1}`, "syntax", ""},
		{"\"a\nb\"", "syntax", ""},
	}
	for _, tc := range cases {
		_, probs, err := Parse([]byte(tc.in))
		code := ""
		if se, ok := err.(*SyntaxError); ok {
			code = se.Code
		} else if err != nil {
			t.Fatalf("%q: unexpected error type %v", tc.in, err)
		}
		if code != tc.code {
			t.Errorf("%q: code %q, want %q (%v)", tc.in, code, tc.code, err)
		}
		if tc.prob != "" && (len(probs) == 0 || probs[0].Code != tc.prob) {
			t.Errorf("%q: problems %v, want %s", tc.in, probs, tc.prob)
		}
	}
}

func TestPointersAndPositions(t *testing.T) {
	in := "{\n \"a/b\": {\"c~d\": [10, {\"e\": \"x\"}]}\n}"
	root, _, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	n := root.Lookup("/a~1b/c~0d/1/e")
	if n == nil || n.String() != "x" {
		t.Fatalf("lookup failed: %+v", n)
	}
	if got := in[n.Offset : n.Offset+3]; got != `"x"` {
		t.Errorf("offset points at %q", got)
	}
	_, probs, _ := Parse([]byte(`{"a":[{"x":1},{"b/c":1,"b/c":2}]}`))
	if len(probs) != 1 || probs[0].Pointer != "/a/1/b~1c" {
		t.Errorf("duplicate pointer: %+v", probs)
	}
	if nn, p := root.Nearest("/a~1b/zz/1"); nn == nil || p != "/a~1b" {
		t.Errorf("nearest = %q", p)
	}
}

// FuzzParse checks the reader against encoding/json: on valid UTF-8 without a BOM
// and within the depth bound, both accept the same inputs and decode the same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `"x"`, `1e5`, `{"a":1,"a":2}`, `[1,]`, `{"a":"\u00e9\ud800"}`, "\xEF\xBB\xBF{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, probs, err := Parse(data)
		checkGet(t, root)
		if !utf8.Valid(data) || strings.HasPrefix(string(data), "\xEF\xBB\xBF") {
			return
		}
		if se, ok := err.(*SyntaxError); ok && se.Code == "depth" {
			return
		}
		valid := json.Valid(data)
		if (err == nil) != valid {
			t.Fatalf("jsonread err=%v, encoding/json valid=%v for %q", err, valid, data)
		}
		if err != nil || len(probs) > 0 {
			return
		}
		want := stdValue(t, string(data))
		if got := root.Interface(); !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %#v, encoding/json %#v", got, want)
		}
	})
}

// stdValue is in decoded by encoding/json as Node.Interface makes a tree a value
// (numbers as json.Number), what the tests hold the parser's trees to.
func stdValue(t testing.TB, in string) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Duplicate keys are reported up to MaxProblems, then counted in one more problem.
func TestProblemsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"k":0`)
	for i := 0; i < MaxProblems+500; i++ {
		b.WriteString(`,"k":0`)
	}
	b.WriteString(`}`)
	_, problems, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != MaxProblems+1 || !strings.Contains(problems[MaxProblems].Message, "500 more duplicate keys") {
		t.Fatalf("%d problems, last %+v", len(problems), problems[len(problems)-1])
	}
}

// splitLookup and splitNearest are the pointer resolution as first written (split
// the pointer into tokens): the oracle of the allocation-free Lookup and Nearest.
func splitLookup(n *Node, pointer string) *Node {
	if pointer == "" {
		return n
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case n == nil:
			return nil
		case n.Kind == Object:
			n = n.Get(tok)
		case n.Kind == Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Items) {
				return nil
			}
			n = n.Items[i]
		default:
			return nil
		}
	}
	return n
}

func splitNearest(n *Node, pointer string) (*Node, string) {
	if pointer == "" || !strings.HasPrefix(pointer, "/") {
		return n, ""
	}
	cur, curPtr := n, ""
	for _, tok := range strings.Split(pointer[1:], "/") {
		next := splitLookup(cur, "/"+tok)
		if next == nil {
			break
		}
		cur, curPtr = next, curPtr+"/"+tok
	}
	return cur, curPtr
}

func TestLookupAgreesWithSplit(t *testing.T) {
	root, _, err := Parse([]byte(`{"a":{"b/c":[1,{"d~e":2,"":{"":3}}],"x":null},"":[[0],"s"],"m~1":4}`))
	if err != nil {
		t.Fatal(err)
	}
	ptrs := []string{"", "/", "//", "///", "/a", "/a/", "/a/b~1c", "/a/b~1c/0", "/a/b~1c/1/d~0e",
		"/a/b~1c/1//", "/a/b~1c/1///", "/a/b~1c/2", "/a/b~1c/-1", "/a/b~1c/+1", "/a/b~1c/01", "/a/x", "/a/x/y",
		"/a/b/c", "//0/0", "//1", "//1/z", "/m~01", "/m~1", "a", "/nope/deeper", "/a/b~1c/1/d~0e/more"}
	var nilNode *Node
	for _, ptr := range ptrs {
		if got, want := root.Lookup(ptr), splitLookup(root, ptr); got != want {
			t.Errorf("Lookup(%q) = %v, want %v", ptr, got, want)
		}
		gn, gp := root.Nearest(ptr)
		wn, wp := splitNearest(root, ptr)
		if gn != wn || gp != wp {
			t.Errorf("Nearest(%q) = %v %q, want %v %q", ptr, gn, gp, wn, wp)
		}
		if nilNode.Lookup(ptr) != splitLookup(nilNode, ptr) {
			t.Errorf("nil.Lookup(%q) differs", ptr)
		}
	}
	if a := testing.AllocsPerRun(100, func() { root.Lookup("//1") }); a != 0 && !raceEnabled {
		t.Errorf("Lookup allocates %v times, want 0", a)
	}
}

// TestArena: trees parsed into an arena equal the trees of Parse, a clone
// outlives the arena's Reset, and a warm arena allocates only the input's copy.
func TestArena(t *testing.T) {
	docs := []string{
		`{"a":[1,2,{"b":"c"}],"d":{"e":null,"f":true}}`,
		`[` + strings.Repeat(`{"k":"v","n":[1,2,3]},`, 200) + `0]`,
		`{"x":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}`,
		`"s"`, `{"dup":1,"dup":2}`, `{"broken":`,
	}
	var ar Arena
	var kept *Node
	// Each round parses the documents in another order, so that Reset hands
	// back nodes, members and items that held values of other kinds (Reset
	// clears nothing: every field must be overwritten).
	for round := 0; round < 2*len(docs); round++ {
		ar.Reset()
		for i := range docs {
			d := docs[(i+round)%len(docs)]
			got, gp, gerr := ar.Parse([]byte(d))
			want, wp, werr := Parse([]byte(d))
			if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(gp, wp) {
				t.Fatalf("round %d doc %d: problems/errors differ: %v %v / %v %v", round, i, gp, gerr, wp, werr)
			}
			if gerr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d doc %d: tree differs from Parse", round, i)
			}
			if round == 0 && i == 0 {
				kept = got.Clone()
			}
		}
	}
	want, _, _ := Parse([]byte(docs[0]))
	if !reflect.DeepEqual(kept, want) {
		t.Fatal("a clone changed after its arena was reset")
	}
	checkGet(t, kept)
	line := []byte(`{"message_type":"TASK","task":{"task_id":"t1","steps":[1,2,3]},"session":{"id":"s"}}`)
	allocs := testing.AllocsPerRun(50, func() {
		ar.Reset()
		if _, _, err := ar.Parse(line); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 && !poison && !raceEnabled {
		t.Errorf("a warm arena allocates %v times per parse, want at most 1 (the input's copy)", allocs)
	}
}

// TestSpecialBytes checks the eight-bytes-at-a-time scan of strings: the mask is
// zero exactly when no byte is '"', '\\', a control character or non-ASCII, and
// its lowest set bit is in the first such byte.
func TestSpecialBytes(t *testing.T) {
	for _, c := range []struct {
		name    string
		mask    func(uint64) uint64
		special func(byte) bool
	}{
		{"specialBytes", specialBytes, func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }},
		{"stopBytes", stopBytes, func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }},
	} {
		checkMask(t, c.name, c.mask, c.special)
	}
}

// checkMask holds mask to special on random words of plain and interesting
// bytes: the lowest set bit of mask(w) is the high bit of w's first special
// byte, and mask(w) is 0 when w has none.
func checkMask(t *testing.T, name string, mask func(uint64) uint64, special func(byte) bool) {
	interesting := []byte{0, 1, 0x1f, 0x20, 0x21, '"', '#', '[', '\\', ']', 'a', 0x7f, 0x80, 0xa0, 0xdc, 0xff}
	rng := uint64(1)
	for n := 0; n < 200000; n++ {
		var w [8]byte
		for i := range w {
			rng = rng*6364136223846793005 + 1442695040888963407
			if rng>>60 < 12 {
				w[i] = 'a' + byte(rng>>40)%26
			} else {
				w[i] = interesting[(rng>>33)%uint64(len(interesting))]
			}
		}
		checkWord(t, name, w, mask, special)
	}
	// Every pair of bytes, at every place, among plain ones.
	for i := 0; i < 7; i++ {
		for b := 0; b < 1<<16; b++ {
			w := [8]byte{'a', '#', 'z', '!', '~', 'A', '0', ' ' + 1}
			w[i], w[i+1] = byte(b), byte(b>>8)
			checkWord(t, name, w, mask, special)
		}
	}
}

// checkWord checks mask on the eight bytes w: the lowest set bit is the high
// bit of the first special byte.
func checkWord(t *testing.T, name string, w [8]byte, mask func(uint64) uint64, special func(byte) bool) {
	first := -1
	for i, c := range w {
		if special(c) {
			first = i
			break
		}
	}
	m := mask(binary.LittleEndian.Uint64(w[:]))
	switch {
	case first < 0 && m != 0:
		t.Fatalf("%s(%q): mask %#x, want 0", name, w, m)
	case first >= 0 && (m == 0 || bits.TrailingZeros64(m)>>3 != first):
		t.Fatalf("%s(%q): mask %#x, first special byte %d", name, w, m, first)
	}
}

// checkGet checks Get (and its filter of absent keys) on every object of a tree:
// each member's key finds the last member of that key, and keys near them that
// are no member's are not found.
func checkGet(t *testing.T, n *Node) {
	t.Helper()
	if n == nil {
		return
	}
	for _, it := range n.Items {
		checkGet(t, it)
	}
	last := map[string]*Node{}
	for _, m := range n.Members {
		last[m.Key] = m.Value
		checkGet(t, m.Value)
	}
	for k, v := range last {
		if got := n.Get(k); got != v {
			t.Fatalf("Get(%q) = %p, want %p", k, got, v)
		}
		for _, other := range []string{k + "x", "x" + k, strings.ToUpper(k), k[:len(k)/2], ""} {
			if _, ok := last[other]; !ok && n.Get(other) != nil {
				t.Fatalf("Get(%q) found a value; keys %v", other, last)
			}
		}
	}
}

// TestGetOfAChangedTree: a member added to a parsed object by hand (as tests of
// other packages do) is found; the parser's filter of keys does not hide it.
func TestGetOfAChangedTree(t *testing.T) {
	root, _, err := Parse([]byte(`{"type":"TASK","task_id":"T-1","payload":{"a":1,"bb":2,"a":3}}`))
	if err != nil {
		t.Fatal(err)
	}
	checkGet(t, root)
	for _, k := range []string{"typ", "task", "session_id", "zz_unknown", "TYPE"} {
		if root.Get(k) != nil {
			t.Errorf("Get(%q) found a value", k)
		}
	}
	root.Members = append(root.Members, Member{Key: "zz_unknown", Value: &Node{Kind: Number, Str: "1"}})
	if root.Get("zz_unknown") == nil {
		t.Error("a member added by hand is not found")
	}
	root.Members = root.Members[1:]
	if root.Get("type") != nil || root.Get("task_id") == nil {
		t.Error("Get after removing a member")
	}
	if c := root.Clone(); c.Get("zz_unknown") == nil || c.Get("payload").Get("a").Str != "3" {
		t.Error("Get on a clone")
	}
}

// TestGetSameEnds: lookups in objects of 1 to 40 members whose keys share
// their filter bit (same length, first and last bytes), with duplicates, find
// the last member of each key and no other key.
func TestGetSameEnds(t *testing.T) {
	for n := 1; n <= 40; n++ {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			// Keys a0z…a9z share length and ends; every seventh repeats one.
			k := fmt.Sprintf("a%dz", i%10)
			if i%7 == 6 {
				k = fmt.Sprintf("a%dz", (i*3)%10)
			}
			fmt.Fprintf(&b, "%q:%d", k, i)
		}
		b.WriteString("}")
		var ar Arena
		for _, parse := range []func([]byte) (*Node, []Problem, error){Parse, ar.Parse} {
			root, _, err := parse([]byte(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			checkGet(t, root)
			for _, k := range []string{"a", "az", "a10z", "b0z", "a0y", "A0z"} {
				if root.Get(k) != nil {
					t.Fatalf("%d members: Get(%q) found a value", n, k)
				}
			}
		}
	}
}

// TestArenaForgetsOldCycles: after a Reset, the arena's slabs hold values of the
// trees of the last cycle at most: a large document's strings are gone from
// them once other documents were parsed and the arena reset again (Reset does
// not clear what the next cycle overwrites, only what lies past its end, and a
// slab end a cycle skips is cleared).
func TestArenaForgetsOldCycles(t *testing.T) {
	// objects returns an array of n objects of m members each, keys prefixed.
	objects := func(prefix string, n, m int) string {
		var b strings.Builder
		b.WriteString("[")
		for o := 0; o < n; o++ {
			if o > 0 {
				b.WriteString(",")
			}
			b.WriteString("{")
			for k := 0; k < m; k++ {
				if k > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `"%s%d":["%s-value",%d]`, prefix, k, prefix, k)
			}
			b.WriteString("}")
		}
		b.WriteString("]")
		return b.String()
	}
	for _, docs := range [][]string{
		// A large cycle, then a small one.
		{objects("old", 30, 40), `{"new":["x"]}`},
		// Runs of 16 fill whole member slabs; runs of 60 then skip the last 16
		// of each slab, twice.
		{objects("old", 40, 16), objects("new", 5, 60), objects("new", 5, 60)},
	} {
		var ar Arena
		for _, doc := range docs {
			ar.Reset()
			if _, _, err := ar.Parse([]byte(doc)); err != nil {
				t.Fatal(err)
			}
		}
		ar.Reset()
		old := func(s string) bool { return strings.HasPrefix(s, "old") }
		for _, slab := range ar.nodes.list {
			for i := range slab {
				if n := &slab[i]; old(n.Str) {
					t.Fatalf("a node of the first document is left: %+v", *n)
				}
			}
		}
		for _, slab := range ar.members.list {
			for _, m := range slab {
				if old(m.Key) {
					t.Fatalf("a member of the first document is left: %q", m.Key)
				}
			}
		}
		for _, slab := range ar.items.list {
			for _, it := range slab {
				if it != nil && old(it.Str) {
					t.Fatalf("an item of the first document is left: %+v", *it)
				}
			}
		}
	}
}

// TestLargeInput: a document past shareLimit (its keys are copies, kept on the
// parser's member stack while their object is read) decodes as encoding/json
// decodes it, nested objects and escaped keys included.
func TestLargeInput(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"list":[`)
	for i := 0; b.Len() < 2*shareLimit; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"n\u00e9":{"k\"%d":"v","in":{"a":[1,{"b":"\u2603"}]}},"z":null}`, i, i%7)
	}
	b.WriteString(`],"tail":true}`)
	want := stdValue(t, b.String())
	// The tree's strings are copies, not substrings of the input (shared or
	// not): they are the same after the input is overwritten.
	var ar Arena
	for _, parse := range []func([]byte) (*Node, []Problem, error){Parse, ar.ParseShared} {
		data := []byte(b.String())
		root, probs, err := parse(data)
		if err != nil || len(probs) > 0 {
			t.Fatal(err, probs)
		}
		for i := range data {
			data[i] = 'X'
		}
		if !reflect.DeepEqual(root.Interface(), want) {
			t.Fatal("decoded differently from encoding/json")
		}
		checkGet(t, root.Get("list").Items[3])
	}
}

// TestWatchKey: an arena that watches a key says whether the last parse read an
// object key equal to it: at any depth, escaped or not, in large objects (the
// duplicate index) as in small ones; not for the key as a value or a prefix.
func TestWatchKey(t *testing.T) {
	var a Arena
	a.WatchKey("x_w")
	big := `{` + strings.Repeat(`"k":1,`, 40) + `"x_w":2}`
	for in, want := range map[string]bool{
		`{"x_w":1}`:                   true,
		`{"a":{"b":[{"x_w":null}]}}`:  true,
		`{"x\u005fw":1}`:              true,
		big:                           true,
		`{"a":"x_w"}`:                 false,
		`{"x_ww":1,"x_":2}`:           false,
		`["x_w"]`:                     false,
		`{"a":1}`:                     false,
		`{"a":1,"a":2,"a":3,"x_v":4}`: false,
	} {
		a.Reset()
		if _, _, err := a.ParseShared([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := a.SawKey(); got != want {
			t.Errorf("%.40s: SawKey %v, want %v", in, got, want)
		}
	}
	a.WatchKey("")
	a.Reset()
	a.ParseShared([]byte(`{"x_w":1,"":2}`))
	if a.SawKey() {
		t.Errorf("no key watched, yet SawKey")
	}
}

func TestScalar(t *testing.T) {
	for in, want := range map[string]string{`12.50`: "12.50", `true`: "true", `false`: "false", `null`: "null", `"x"`: "string", `[1]`: "array", `{}`: "object"} {
		n, _, err := Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := n.Scalar(); got != want {
			t.Errorf("Scalar(%s) = %q, want %q", in, got, want)
		}
	}
}
