package jsonread

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkSimpleFloat holds simpleFloat to strconv.ParseFloat, bit for bit (the
// sign of a zero too), wherever it answers.
func checkSimpleFloat(t *testing.T, s string) bool {
	t.Helper()
	got, ok := simpleFloat(s)
	if !ok {
		return false
	}
	want, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("simpleFloat(%q) = %v (%x), ParseFloat %v (%x), %v", s, got, math.Float64bits(got), want, math.Float64bits(want), err)
	}
	return true
}

func TestSimpleFloat(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"-0.0", true}, {"7", true}, {"007", true}, {"0.1", true}, {"0.33", true},
		{"-12.5", true}, {"999999999999999", true}, {"99999999999999.9", true}, {"0.00000000000001", true},
		{"1000000000000000", false}, {"0.000000000000001", false}, {"1e5", false}, {"1E5", false},
		{"", false}, {"-", false}, {".5", false}, {"5.", false}, {"-.5", false}, {"1.2.3", false},
		{"1_0", false}, {"0x10", false}, {"inf", false}, {"NaN", false}, {"+1", false}, {"--1", false},
	} {
		if got := checkSimpleFloat(t, c.in); got != c.ok {
			t.Errorf("simpleFloat(%q) ok = %v, want %v", c.in, got, c.ok)
		}
	}
	// Random literals of every length and point position (a fixed seed).
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		n := 1 + r.Intn(16)
		b := make([]byte, 0, n+2)
		if r.Intn(2) == 0 {
			b = append(b, '-')
		}
		for j := 0; j < n; j++ {
			b = append(b, byte('0'+r.Intn(10)))
		}
		if at := r.Intn(n + 1); at > 0 && at < n && r.Intn(4) != 0 {
			b = append(b[:len(b)-n+at], append([]byte{'.'}, b[len(b)-n+at:]...)...)
		}
		checkSimpleFloat(t, string(b))
	}
}

// Node.Float and Int answer as strconv.ParseFloat does for the number
// literals of any input (Float's fast path against the old path).
func FuzzSimpleFloat(f *testing.F) {
	for _, s := range []string{"0", "-0", "0.1", "12.34", "999999999999999", "1e5", "-.5", "1."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSimpleFloat(t, s)
		n := &Node{Kind: Number, Str: s}
		want, err := strconv.ParseFloat(s, 64)
		got, ok := n.Float()
		if ok != (err == nil) || (ok && math.Float64bits(got) != math.Float64bits(want)) {
			t.Fatalf("Float(%q) = %v, %v; ParseFloat %v, %v", s, got, ok, want, err)
		}
	})
}

// Lookup's eight-byte scan finds the tokens strings.Split does (splitLookup):
// pointers built from keys with and without escapes, of every length around
// eight.
func TestLookupScan(t *testing.T) {
	keys := []string{"a", "payload", "task_id", "abcdefgh", "abcdefghi", "x~y", "a/b", "~", "/", "long~key/with~1both~0", "0", "12", ""}
	doc := `{`
	for i, k := range keys {
		if i > 0 {
			doc += ","
		}
		doc += strconv.Quote(k) + `:{"payload":{"task_id":[1,{"abcdefgh":"v","a/b":2,"x~y":3}]},"abcdefghi":[0,1,2,3,4,5,6,7,8,9,10,11,12]}`
	}
	doc += `}`
	root, _, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	toks := []string{"a", "payload", "task_id", "abcdefgh", "abcdefghi", "x~0y", "a~1b", "~0", "~1", "long~0key~1with~01both~00", "0", "1", "12", "", "zz", "~2", "~", "abcdefgh~1", "task_id~0"}
	r := rand.New(rand.NewSource(2))
	found := 0
	for i := 0; i < 100000; i++ {
		p := ""
		for n := r.Intn(5); n >= 0; n-- {
			p += "/" + toks[r.Intn(len(toks))]
		}
		got, want := root.Lookup(p), splitLookup(root, p)
		if got != want {
			t.Fatalf("Lookup(%q) = %p, splitLookup %p", p, got, want)
		}
		if got != nil {
			found++
		}
	}
	if found < 1000 {
		t.Fatalf("only %d pointers resolved: the test does not reach the tree", found)
	}
}

// getRef is Node.Get as a plain scan with ==: the last member named key.
func getRef(n *Node, key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Value
		}
	}
	return nil
}

// TestGetCompare holds Get's word compare of keys to == (getRef): keys of
// every length up to 40 that differ from a member's in one byte at any
// place, members that are equal but for the byte past a short key's end, and
// duplicates (the last wins).
func TestGetCompare(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	alpha := "ab_"
	randKey := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[r.Intn(len(alpha))]
		}
		return string(b)
	}
	for round := 0; round < 3000; round++ {
		var keys []string
		for i := r.Intn(12); i >= 0; i-- {
			keys = append(keys, randKey(r.Intn(41)))
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Quote(k))
			sb.WriteString(":" + strconv.Itoa(i))
		}
		sb.WriteByte('}')
		root, _, err := Parse([]byte(sb.String()))
		if err != nil {
			t.Fatal(err)
		}
		// Probes: each key, each key with one byte changed, longer and shorter.
		probes := []string{""}
		for _, k := range keys {
			probes = append(probes, k, k+"a", randKey(len(k)))
			if len(k) > 0 {
				probes = append(probes, k[:len(k)-1])
				for j := 0; j < len(k); j++ {
					b := []byte(k)
					b[j] ^= 1
					probes = append(probes, string(b))
				}
			}
		}
		for _, p := range probes {
			if got, want := root.Get(p), getRef(root, p); got != want {
				t.Fatalf("%s: Get(%q) = %v, want %v", sb.String(), p, got, want)
			}
		}
	}
}

// pathTo is the JSON Pointer of the member whose key is at keyOff, found by
// walking the tree ("", false when there is none).
func pathTo(n *Node, keyOff int) (string, bool) {
	switch n.Kind {
	case Object:
		for _, m := range n.Members {
			if m.KeyOffset == keyOff {
				return "/" + EscapeToken(m.Key), true
			}
			if p, ok := pathTo(m.Value, keyOff); ok {
				return "/" + EscapeToken(m.Key) + p, true
			}
		}
	case Array:
		for i, it := range n.Items {
			if p, ok := pathTo(it, keyOff); ok {
				return "/" + strconv.Itoa(i) + p, true
			}
		}
	}
	return "", false
}

// TestDuplicatePointer holds the pointer of each duplicate key the parser
// reports (its path of steps by depth) to the member's path in the tree, on
// random documents nested up to 6 levels with duplicates at every level.
func TestDuplicatePointer(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	keys := []string{"a", "b", "a/b", "c~d", "e"}
	var gen func(b *strings.Builder, depth int)
	gen = func(b *strings.Builder, depth int) {
		switch k := r.Intn(4); {
		case depth >= 6 || k == 0:
			b.WriteString(`"v"`)
		case k == 1:
			b.WriteByte('[')
			for i := r.Intn(4); i >= 0; i-- {
				gen(b, depth+1)
				if i > 0 {
					b.WriteByte(',')
				}
			}
			b.WriteByte(']')
		default:
			b.WriteByte('{')
			for i := r.Intn(5); i >= 0; i-- {
				b.WriteString(strconv.Quote(keys[r.Intn(len(keys))]) + ":")
				gen(b, depth+1)
				if i > 0 {
					b.WriteByte(',')
				}
			}
			b.WriteByte('}')
		}
	}
	dups := 0
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		gen(&b, 0)
		root, probs, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range probs {
			if pr.Code != "duplicate-key" {
				continue
			}
			dups++
			if want, ok := pathTo(root, pr.Offset); !ok || pr.Pointer != want {
				t.Fatalf("%s: duplicate at %d has pointer %q, want %q", b.String(), pr.Offset, pr.Pointer, want)
			}
		}
	}
	if dups < 1000 {
		t.Fatalf("only %d duplicates in the random documents", dups)
	}
}

// TestPlainEnd holds object's plain-string path (plainEnd, then the quote) to
// str on random strings of plain bytes, quotes, escapes, control and
// non-ASCII bytes at every offset from the end of the input: where the path
// answers, str gives the same string and position.
func TestPlainEnd(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	alpha := []byte("abcdefgh\"\\\x01\xc3\xa9 {}:")
	answered := 0
	for round := 0; round < 200000; round++ {
		b := []byte{'"'}
		for i := r.Intn(30); i > 0; i-- {
			if r.Intn(3) == 0 {
				b = append(b, alpha[r.Intn(len(alpha))])
			} else {
				b = append(b, byte('a'+r.Intn(26)))
			}
		}
		if r.Intn(2) == 0 {
			b = append(b, '"')
		}
		for i := r.Intn(10); i > 0; i-- {
			b = append(b, '}')
		}
		src := string(b)
		p := &parser{data: b, src: src}
		want, err := p.str()
		end := plainEnd(src, 1)
		if end >= len(b) || b[end] != '"' {
			continue
		}
		answered++
		if err != nil || want != src[1:end] || p.pos != end+1 {
			t.Fatalf("%q: plain path %q at %d, str %q at %d (%v)", b, src[1:end], end+1, want, p.pos, err)
		}
	}
	if answered < 20000 {
		t.Fatalf("the plain path answered only %d times", answered)
	}
}

// TestDuplicateKeys holds the duplicate keys the parser reports (filter, one
// by one compares, the index of an object of dupScanMax members or more) to
// a plain count of the keys seen before, on random objects of 1 to 100
// members whose keys often share their filter bit, nested in each other; and
// Get on them to getRef (the filter is made again once the index was made).
func TestDuplicateKeys(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for round := 0; round < 2000; round++ {
		members := 1 + r.Intn(100)
		keys := make([]string, members)
		alpha := 5 + r.Intn(200) // how many different keys: few makes duplicates
		var b strings.Builder
		b.WriteString("{")
		var want []int // offsets of the duplicates, in input order
		seen := map[string]bool{}
		for i := range keys {
			if i > 0 {
				b.WriteString(",")
			}
			// Keys "k<n>" of the same length and ends share a filter bit.
			keys[i] = fmt.Sprintf("k%dz", r.Intn(alpha))
			if seen[keys[i]] {
				want = append(want, b.Len())
			}
			seen[keys[i]] = true
			fmt.Fprintf(&b, "%q:", keys[i])
			if r.Intn(10) == 0 {
				b.WriteString(`{"a":1,"b":{"a":2,"a":3}}`) // a nested duplicate: its own object's
				want = append(want, b.Len()-len(`"a":3}}`))
			} else {
				b.WriteString(strconv.Itoa(i))
			}
		}
		b.WriteString("}")
		root, probs, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, pr := range probs {
			got = append(got, pr.Offset)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: duplicates at %v, want %v", b.String(), got, want)
		}
		for i := 0; i < alpha+3; i++ {
			k := fmt.Sprintf("k%dz", i)
			if root.Get(k) != getRef(root, k) {
				t.Fatalf("%s: Get(%q) differs from getRef", b.String(), k)
			}
		}
	}
}

// TestStrRest holds the escape path's reading of strings (its runs of plain
// bytes found eight at a time) to encoding/json on random strings of plain
// ASCII, UTF-8, escapes, control characters and invalid UTF-8, of every
// length up to 80.
func TestStrRest(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	parts := []string{`\n`, `\"`, `\\`, `\/`, `\t`, `\u00e9`, `\ud83d\ude00`, `\u0041`, "é", "日本", "\xff", "\x01", "~"}
	escaped := 0
	for round := 0; round < 20000; round++ {
		var b strings.Builder
		b.WriteByte('"')
		for b.Len() < r.Intn(80) {
			if r.Intn(4) == 0 {
				b.WriteString(parts[r.Intn(len(parts))])
			} else {
				b.WriteByte(byte('a' + r.Intn(26)))
			}
		}
		b.WriteByte('"')
		lit := b.String()
		var want string
		// (encoding/json reads invalid UTF-8 as U+FFFD: jsonread rejects it.)
		wantErr := json.Unmarshal([]byte(lit), &want) != nil || !utf8.ValidString(lit)
		p := &parser{data: []byte(lit), src: lit}
		got, err := p.str()
		if (err != nil) != wantErr || (err == nil && (got != want || p.pos != len(lit))) {
			t.Fatalf("%q: str %q at %d (%v), encoding/json %q (%v)", lit, got, p.pos, err, want, wantErr)
		}
		if err == nil && strings.Contains(lit, `\`) {
			escaped++
		}
	}
	if escaped < 5000 {
		t.Fatalf("only %d strings with escapes read", escaped)
	}
}

// TestWhitespaceAroundValues: a member's value of every kind, with whitespace
// or none on either side of ':' and before '}', reads as encoding/json reads
// it, at its offset (the object loop reads a value right after ':' without
// skipping, and skips whitespace only on the path of every other value).
func TestWhitespaceAroundValues(t *testing.T) {
	values := []string{`"s"`, `"e\n"`, `""`, `1`, `-2.5e3`, `0`, `{}`, `{"x":1}`, `[]`, `[1,"a"]`, `true`, `false`, `null`}
	spaces := []string{"", " ", "\n\t ", "\r"}
	for _, v := range values {
		for _, before := range spaces {
			for _, after := range spaces {
				in := `{"a":0,"k"` + before + ":" + after + v + before + `,"z"` + after + ":" + v + "}"
				root, _, err := Parse([]byte(in))
				if err != nil {
					t.Fatalf("%q: %v", in, err)
				}
				want := stdValue(t, in)
				if !reflect.DeepEqual(root.Interface(), want) {
					t.Fatalf("%q: read %v, want %v", in, root.Interface(), want)
				}
				k := root.Get("k")
				if at := strings.Index(in, `"k"`) + 3 + len(before) + 1 + len(after); k.Offset != at || k.End != at+len(v) {
					t.Fatalf("%q: value at %d-%d, want %d-%d", in, k.Offset, k.End, at, at+len(v))
				}
			}
		}
	}
}
