// Package jsonread is the JSON reader in front of the schema validator. It keeps
// the byte offset of every value and key, so every diagnostic gets a line, a column
// and a JSON Pointer, and it rejects what encoding/json and gojsonschema let through:
// duplicate keys, trailing data after the value, invalid UTF-8, nesting deeper than
// MaxDepth. A leading byte-order mark is skipped and reported as a warning.
package jsonread

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth bounds nesting of arrays and objects.
const MaxDepth = 256

// MaxValues bounds the values (scalars, arrays and objects) of one document, so
// that the tree of one message costs a bounded amount of memory whatever its
// shape: a 16 MiB array of one-digit numbers holds 8 M values, about 1 GB of
// tree. No protocol message comes near it.
const MaxValues = 1 << 18

// MaxProblems bounds the non-fatal problems kept for one document; past it one
// more problem says how many were left out.
const MaxProblems = 1000

// Kind is the JSON type of a Node.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k Kind) String() string { return kindNames[k] }

// Node is one JSON value with its position.
type Node struct {
	Kind Kind
	Bool bool // Bool
	// keys is a one-hash Bloom filter of the object's member keys (keyBit),
	// made by the parser for the nkeys members at keysOf: Get answers most
	// lookups of an absent key without comparing any. It counts only while
	// Members is still that slice: an object built by hand, or whose Members
	// were replaced, is searched in full. (Members of a parsed object must not
	// be changed in place: replace the slice.)
	nkeys   uint16
	keys    uint32
	keysOf  *Member
	Offset  int    // byte offset of the value's first byte in the input
	End     int    // byte offset just past the value
	Str     string // String: the decoded value; Number: the literal text
	Items   []*Node
	Members []Member
}

// Member is one key/value pair of an object, in input order.
type Member struct {
	Key       string
	KeyOffset int
	Value     *Node
}

// Problem is a finding of the reader that is not fatal (duplicate key, BOM).
type Problem struct {
	Offset  int
	Pointer string
	Code    string // "duplicate-key", "bom"
	Message string
}

// SyntaxError is a fatal parse error at a byte offset.
type SyntaxError struct {
	Offset int
	Code   string // "syntax", "utf8", "depth", "values", "trailing", "empty"
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Get returns the member value named key, or nil. With duplicate keys the last one
// wins, as in most parsers (the duplicate itself is reported as a Problem).
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	ms := n.Members
	if len(key) == 0 {
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].Key == "" {
				return ms[i].Value
			}
		}
		return nil
	}
	first, last := key[0], key[len(key)-1]
	if n.keysOf != nil && n.keys&keyBitOf(len(key), first, last) == 0 && len(ms) == int(n.nkeys) && unsafe.SliceData(ms) == n.keysOf {
		return nil
	}
	// A key of at most 16 bytes (nearly every protocol key) is compared by
	// loads of its first and last 8 or 4 bytes, which overlap and cover it,
	// or, under 4 bytes, by its middle and last bytes: no call, and no
	// registers spilled around one (TestGetCompare holds it to ==).
	kn := len(key)
	pk := unsafe.Pointer(unsafe.StringData(key))
	// The members from the last, by a pointer (no index, no bounds check).
	const size = unsafe.Sizeof(Member{})
	base := unsafe.Pointer(unsafe.SliceData(ms))
	for off := uintptr(len(ms)) * size; off != 0; {
		off -= size
		// Length and first byte before the whole comparison: most keys of an
		// object differ in one of them. (A key of key's length is not empty:
		// its first byte is there.)
		m := (*Member)(unsafe.Add(base, off))
		if len(m.Key) != kn || *unsafe.StringData(m.Key) != first {
			continue
		}
		pm := unsafe.Pointer(unsafe.StringData(m.Key))
		var same bool
		switch {
		case kn >= 8 && kn <= 16:
			same = (load64(pm, 0)^load64(pk, 0))|(load64(pm, kn-8)^load64(pk, kn-8)) == 0
		case kn >= 4 && kn < 8:
			same = (load32(pm, 0)^load32(pk, 0))|(load32(pm, kn-4)^load32(pk, kn-4)) == 0
		case kn < 4:
			same = *(*byte)(unsafe.Add(pm, kn-1)) == last && *(*byte)(unsafe.Add(pm, kn/2)) == *(*byte)(unsafe.Add(pk, kn/2)) // (kn/2 < kn: no bounds check, so no panic path and no frame)
		default:
			// Longer: 8 bytes at a time, then the last 8 (no call either,
			// so that Get is a leaf without a stack check).
			same = load64(pm, kn-8) == load64(pk, kn-8)
			for j := 0; same && j < kn-8; j += 8 {
				same = load64(pm, j) == load64(pk, j)
			}
		}
		if same {
			return m.Value
		}
	}
	return nil
}

// load64 and load32 read the little-endian word at p+off (one load where
// unaligned loads are allowed). The eight-byte scans (plainEnd, strRest and
// resolve's token scan) write the load out instead: through
// load64, the nested inlining left an extra instruction in each of their hot
// loops (objdump), 1-2 M more over the 20k-message transcript (callgrind).
func load64(p unsafe.Pointer, off int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, off))[:])
}

func load32(p unsafe.Pointer, off int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, off))[:])
}

// keyBit is key's bit in Node.keys: a hash of its length and first and last bytes.
func keyBit(key string) uint32 {
	if key == "" {
		return 1
	}
	return keyBitOf(len(key), key[0], key[len(key)-1])
}

// keyBitOf is keyBit of a key of length n ≥ 1 and first and last bytes.
func keyBitOf(n int, first, last byte) uint32 {
	h := (uint32(n)<<16 | uint32(first)<<8 | uint32(last)) * 0x9E3779B1
	return 1 << (h >> 27)
}

// ReadMembers finds many members of n in one pass instead of a Get each: for
// every member, from the last, slot(r, key) says where r keeps that key's value
// (nil: a key r does not read), and the value goes there unless the place
// already holds one, so a repeated key leaves its last member, as Get finds it.
// Nothing is read when n is not an object. The keys stay a switch over
// constants in each reader's slot, which the compiler searches by length and
// bytes, where keys taken as data would be compared with every member (measured
// slower, issue 11); slot is a method expression, such as (*view).slot, not a
// method value, so that r stays where its caller made it.
func ReadMembers[R any](n *Node, r *R, slot func(r *R, key string) **Node) {
	if n == nil || n.Kind != Object {
		return
	}
	ms := n.Members
	for i := len(ms) - 1; i >= 0; i-- {
		if at := slot(r, ms[i].Key); at != nil && *at == nil {
			*at = ms[i].Value
		}
	}
}

// Scalar renders a number, a boolean or null as its JSON text, and another node
// by its kind ("string", "array", "object"): what the rules' renderings of a
// value for messages share.
func (n *Node) Scalar() string {
	switch n.Kind {
	case Number:
		return n.Str
	case Bool:
		if n.Bool {
			return "true"
		}
		return "false"
	}
	return n.Kind.String()
}

// Has reports whether the object has the key.
func (n *Node) Has(key string) bool { return n.Get(key) != nil }

// Path walks object keys: n.Path("payload", "tests").
func (n *Node) Path(keys ...string) *Node {
	for _, k := range keys {
		n = n.Get(k)
		if n == nil {
			return nil
		}
	}
	return n
}

// String returns the string value, or "" if the node is not a string.
func (n *Node) String() string {
	if n == nil || n.Kind != String {
		return ""
	}
	return n.Str
}

// IsString reports whether n is a string node.
func (n *Node) IsString() bool { return n != nil && n.Kind == String }

// Float returns the numeric value and whether n is a number.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != Number {
		return 0, false
	}
	if f, ok := simpleFloat(n.Str); ok {
		return f, true
	}
	f, err := strconv.ParseFloat(n.Str, 64)
	return f, err == nil
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// simpleFloat is strconv.ParseFloat(s, 64) of the literals most numbers of a
// message are (an optional '-', at most 15 digits with at most one '.' between
// two of them, no exponent), computed without it; ok is false for any other s.
// Digits below 10^15 are an exact float64, and so is the power of ten that
// places the point: the one division rounds once, as ParseFloat rounds (its
// own exact fast path).
func simpleFloat(s string) (f float64, ok bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	// Digits on both sides of a point, if there is one. (Every index below is
	// provably in range: no bounds check, no panic path, no stack frame.)
	if len(s) < 1 || len(s) > 16 || s[0] == '.' || s[len(s)-1] == '.' {
		return 0, false
	}
	var mant uint64
	frac, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if !dot && len(s) > 15 {
		return 0, false // 16 digits
	}
	f = float64(mant) / pow10[frac&15] // (frac < 15: at most 16 bytes, a digit on each side of the point)
	if neg {
		f = -f
	}
	return f, true
}

// Int returns the value of an integral number.
func (n *Node) Int() (int64, bool) {
	f, ok := n.Float()
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// Lookup resolves an RFC 6901 JSON Pointer. It allocates nothing unless a
// token holds an escape (~0 or ~1).
func (n *Node) Lookup(pointer string) *Node {
	if found, end := n.resolve(pointer); end == len(pointer) {
		return found
	}
	return nil
}

// Nearest resolves pointer as far as it exists and returns the deepest node found
// and the pointer to it (a prefix of pointer).
func (n *Node) Nearest(pointer string) (*Node, string) {
	found, end := n.resolve(pointer)
	return found, pointer[:end]
}

// resolve resolves pointer as far as it exists: the deepest node found, and
// the end of the prefix of pointer that names it (len(pointer) when all of it
// resolves; 0 when pointer does not start with '/').
func (n *Node) resolve(pointer string) (*Node, int) {
	if pointer == "" || pointer[0] != '/' {
		return n, 0
	}
	// One pass over each token finds its end and whether it holds an escape
	// (tokens are short: a loop costs less than two IndexByte calls), eight
	// bytes at a time while eight are left.
	end := 0
	for i := 1; ; {
		j, esc := i, false
		for j+8 <= len(pointer) {
			w := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(pointer)), j))[:])
			// The lowest set bit of each is exact (zeroByte): the first '/',
			// and the first '~', which is the token's if it comes before.
			slash, tilde := zeroByte(w^(ones*'/')), zeroByte(w^(ones*'~'))
			if tilde != 0 && (slash == 0 || bits.TrailingZeros64(tilde) < bits.TrailingZeros64(slash)) {
				esc = true
			}
			if slash != 0 {
				j += bits.TrailingZeros64(slash) >> 3
				goto tokenEnd
			}
			j += 8
		}
		for ; j < len(pointer) && pointer[j] != '/'; j++ {
			if pointer[j] == '~' {
				esc = true
			}
		}
	tokenEnd:
		var next *Node
		if n != nil && n.Kind == Object && !esc {
			next = n.Get(pointer[i:j]) // the usual step, without stepEsc's call
		} else {
			next = n.stepEsc(pointer[i:j], esc)
		}
		if next == nil {
			return n, end
		}
		n, end = next, j
		if j == len(pointer) {
			return n, end
		}
		i = j + 1
	}
}

// stepEsc resolves one raw reference token below n, a token that holds an
// escape (~0 or ~1) if esc.
func (n *Node) stepEsc(tok string, esc bool) *Node {
	if esc {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	}
	switch {
	case n == nil:
		return nil
	case n.Kind == Object:
		return n.Get(tok)
	case n.Kind == Array:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Items) {
			return nil
		}
		return n.Items[i]
	}
	return nil
}

// EscapeToken escapes one reference token of a JSON Pointer.
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// JoinPointer joins reference tokens (strings, escaped here, and array
// indexes) to base: JoinPointer("/task", "inputs", 3) is "/task/inputs/3".
func JoinPointer(base string, toks ...any) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range toks {
		b.WriteByte('/')
		switch v := t.(type) {
		case string:
			b.WriteString(EscapeToken(v))
		case int:
			b.WriteString(strconv.Itoa(v))
		}
	}
	return b.String()
}

// Interface converts the tree to the values encoding/json would produce with
// UseNumber (map[string]any, []any, json.Number, string, bool, nil), the form
// gojsonschema's raw loader validates without decoding again.
func (n *Node) Interface() any {
	switch n.Kind {
	case Null:
		return nil
	case Bool:
		return n.Bool
	case Number:
		return json.Number(n.Str)
	case String:
		return n.Str
	case Array:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Interface()
		}
		return out
	default:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			out[m.Key] = m.Value.Interface()
		}
		return out
	}
}

// Parse reads exactly one JSON value from data. It returns the tree, the non-fatal
// problems found, and a *SyntaxError when the input is not one valid JSON value.
func Parse(data []byte) (*Node, []Problem, error) {
	return parse(data, &Arena{}, false)
}

// Arena is the memory of the trees parsed through it: nodes, members and items
// are cut from chunks that Reset hands back for the next trees, so a driver that
// is done with a batch of trees parses the next batch without allocating them
// again. The strings of a tree (keys, values, number literals) are never in the
// arena: they stay valid after Reset. An Arena is not safe for concurrent use.
type Arena struct {
	nodes   chunks[Node]
	members chunks[Member]
	items   chunks[*Node]
	used    bool     // Parse was called: the chunks are reused after Reset
	scratch *scratch // the parser's stacks, kept for the next Parse
	// watch is WatchKey's key and watchBit its keyBit (0: none); sawWatch says
	// whether the last parse read an object key equal to it.
	watch    string
	watchBit uint32
	sawWatch bool
}

// WatchKey makes the arena's parses note whether they read an object key equal
// to key ("": none), for SawKey: a caller looking for one rare member learns it
// from the parse, at the cost of a test per object (of the object's filter of
// its keys), instead of a search of the input.
func (a *Arena) WatchKey(key string) {
	a.watch, a.watchBit = key, 0
	if key != "" {
		a.watchBit = keyBit(key)
	}
}

// Watched is WatchKey's key.
func (a *Arena) Watched() string { return a.watch }

// SawKey reports whether the last Parse or ParseShared of the arena read an
// object key equal to WatchKey's, by its decoded value (of a parse that failed:
// among the objects it read to their end).
func (a *Arena) SawKey() bool { return a.sawWatch }

// Parse is the package's Parse, with the tree in the arena: it is valid until
// the next Reset.
func (a *Arena) Parse(data []byte) (*Node, []Problem, error) {
	a.used = true
	return parse(data, a, false)
}

// ParseShared is Parse for input the caller lends: the tree's strings point into
// data instead of a copy of it, so they are valid only while data is unchanged
// (lint/linter reuses a line's buffer once the line is linted; whoever keeps a
// string copies it: lint.Message's ownership note). Input over 64 KiB is not
// shared: as by Parse, every string of its tree is a copy of its own, so that a
// kept string pins no huge line.
func (a *Arena) ParseShared(data []byte) (*Node, []Problem, error) {
	a.used = true
	return parse(data, a, true)
}

// Reset takes back every tree parsed since the last Reset: their nodes may be
// overwritten by the next Parse. Keep a tree longer with Clone.
//
// Reset does not clear the trees it takes back: every node, member and item is
// overwritten whole when it is cut again, so a clear would only add a pass over
// pointerful memory (with a write barrier per pointer while the GC marks). It
// clears only what the cycle before left past the end of the last one (see
// chunks.reset), so what old trees point to (their strings) stays reachable
// one cycle at most.
func (a *Arena) Reset() {
	if !a.used {
		return
	}
	a.nodes.reset(poisonNode)
	a.members.reset(poisonMember)
	a.items.reset(nil)
}

// chunks is a list of slabs cut front to back; with reuse, reset starts over at
// the first slab, else each slab is sized for the input left to parse.
type chunks[T any] struct {
	list [][]T
	cur  int // the slab being cut
	off  int // elements of list[cur] already cut
	// dirtyCur, dirtyOff is where the elements cut before the last Reset end:
	// what lies past it was cleared.
	dirtyCur, dirtyOff int
}

// cut and takeSlow return k fresh elements: contiguous, of capacity k. cut is
// the usual case, small enough to be inlined: k elements from the current slab
// when it has room (and k is not past a quarter slab); takeSlow the rest, where
// a run longer than a quarter slab gets its own slice.
func (c *chunks[T]) cut(k int) ([]T, bool) {
	if k <= slabMax/4 && c.cur < len(c.list) && c.off+k <= len(c.list[c.cur]) {
		out := c.list[c.cur][c.off : c.off+k : c.off+k]
		c.off += k
		return out, true
	}
	return nil, false
}

// takeSlow is the rest of cut's job (see there).
func (c *chunks[T]) takeSlow(k, want int, reuse bool) []T {
	if k > slabMax/4 {
		return make([]T, k)
	}
	for {
		if c.cur < len(c.list) {
			if ch := c.list[c.cur]; c.off+k <= len(ch) {
				out := ch[c.off : c.off+k : c.off+k]
				c.off += k
				return out
			}
			if c.cur+1 < len(c.list) || reuse {
				// The rest of this slab is skipped: cleared, so that it holds
				// no values of an earlier tree (rare: a run longer than it).
				clear(c.list[c.cur][c.off:])
				c.cur, c.off = c.cur+1, 0
				continue
			}
		}
		size := slabMax
		if !reuse {
			size = min(max(want, k), slabMax)
			c.list = c.list[:0] // a one-off parse forgets its full slabs
			c.cur = 0
		}
		c.list = append(c.list, make([]T, size))
		c.cur, c.off = len(c.list)-1, 0
	}
}

// rest takes what is left of the current slab, or a new slab: the caller cuts
// it one element at a time and gives back what it did not use (giveBack).
func (c *chunks[T]) rest(want int, reuse bool) []T {
	if c.cur < len(c.list) && c.off < len(c.list[c.cur]) {
		out := c.list[c.cur][c.off:]
		c.off = len(c.list[c.cur])
		return out
	}
	if reuse && c.cur+1 < len(c.list) {
		c.cur, c.off = c.cur+1, len(c.list[c.cur+1])
		return c.list[c.cur]
	}
	size := slabMax
	if !reuse {
		// A one-off parse keeps its full slabs in the list too.
		size = min(want, slabMax)
		if c.list == nil {
			c.list = make([][]T, 0, 2) // one allocation for the slabs of most messages
		}
	}
	c.list = append(c.list, make([]T, size))
	c.cur, c.off = len(c.list)-1, size
	return c.list[c.cur]
}

// giveBack returns the last n elements taken, unused.
func (c *chunks[T]) giveBack(n int) { c.off -= n }

// reset starts cutting again at the first slab; with poison set, it first fills
// what was cut with poisoned values. What was cut before the previous Reset
// past what was cut since is cleared: the slabs then hold values of the trees
// of the last cycle only (overwritten as the next one is cut), never of
// cycles long gone. In a steady stream that is a few elements, not the whole
// cycle's.
func (c *chunks[T]) reset(poisonFn func([]T)) {
	for i := 0; poison && poisonFn != nil && i <= c.cur && i < len(c.list); i++ {
		used := c.list[i]
		if i == c.cur {
			used = used[:c.off]
		}
		poisonFn(used)
	}
	if c.dirtyCur > c.cur || (c.dirtyCur == c.cur && c.dirtyOff > c.off) {
		for i := c.cur; i <= c.dirtyCur && i < len(c.list); i++ {
			lo, hi := 0, len(c.list[i])
			if i == c.cur {
				lo = c.off
			}
			if i == c.dirtyCur {
				hi = c.dirtyOff
			}
			clear(c.list[i][lo:hi])
		}
	}
	c.dirtyCur, c.dirtyOff = c.cur, c.off
	c.cur, c.off = 0, 0
}

// poison, set by AOPKIT_ARENA_POISON=1, fills the trees an arena takes back with
// values no input makes: a tree used after its Reset then shows in the output
// (a test of the linter's ownership of trees, not a feature).
var poison = os.Getenv("AOPKIT_ARENA_POISON") != ""

const poisoned = "\x00poisoned by jsonread.Arena.Reset"

func poisonNode(ns []Node) {
	for i := range ns {
		ns[i] = Node{Kind: String, Offset: 1 << 30, End: 1 << 30, Str: poisoned}
	}
}

func poisonMember(ms []Member) {
	for i := range ms {
		ms[i] = Member{Key: poisoned, KeyOffset: 1 << 30, Value: &Node{Kind: String, Str: poisoned}}
	}
}

// Clone copies the tree into memory of its own (strings are shared: they are
// immutable), to be kept past the Reset of the arena it was parsed into. The
// copy is compact: three allocations (nodes, members, items) whatever its size.
func (n *Node) Clone() *Node {
	if n == nil {
		return nil
	}
	var nodes, members, items int
	n.count(&nodes, &members, &items)
	c := cloner{nodes: make([]Node, nodes)}
	if members > 0 {
		c.members = make([]Member, members)
	}
	if items > 0 {
		c.items = make([]*Node, items)
	}
	return c.clone(n)
}

func (n *Node) count(nodes, members, items *int) {
	*nodes++
	*members += len(n.Members)
	*items += len(n.Items)
	for _, it := range n.Items {
		it.count(nodes, members, items)
	}
	for _, m := range n.Members {
		m.Value.count(nodes, members, items)
	}
}

// cloner cuts a clone's nodes, members and items from its three slices.
type cloner struct {
	nodes   []Node
	members []Member
	items   []*Node
}

func (c *cloner) clone(n *Node) *Node {
	out := &c.nodes[0]
	c.nodes = c.nodes[1:]
	*out = *n
	if n.Items != nil {
		out.Items, c.items = c.items[:len(n.Items):len(n.Items)], c.items[len(n.Items):]
		for i, it := range n.Items {
			out.Items[i] = c.clone(it)
		}
	}
	if n.Members != nil {
		out.Members, c.members = c.members[:len(n.Members):len(n.Members)], c.members[len(n.Members):]
		for i, m := range n.Members {
			out.Members[i] = Member{Key: m.Key, KeyOffset: m.KeyOffset, Value: c.clone(m.Value)}
		}
	}
	if n.keysOf != nil {
		// The same keys, in the copy's members (the filter must not name, nor
		// pin, the arena's).
		out.keysOf = nil
		if len(n.Members) == int(n.nkeys) && unsafe.SliceData(n.Members) == n.keysOf {
			out.keysOf = unsafe.SliceData(out.Members)
		}
	}
	return out
}

func parse(data []byte, ar *Arena, shared bool) (*Node, []Problem, error) {
	// The stacks: a reused arena's own (an arena is used by one goroutine at
	// a time), else the pool's.
	sc := ar.scratch
	if sc == nil {
		sc = scratchPool.Get().(*scratch)
		if ar.used {
			ar.scratch = sc
		} else {
			defer scratchPool.Put(sc)
		}
	}
	if len(sc.path) <= MaxDepth {
		sc.path = make([]step, MaxDepth+1)
	}
	p := &parser{data: data, members: sc.members[:0], items: sc.items[:0], path: sc.path, buf: sc.buf, ar: ar, reuse: ar.used, watchBit: ar.watchBit}
	ar.sawWatch = false
	root, err := p.document(shared)
	ar.nodes.giveBack(len(p.slab) - p.cut)
	// The stacks point into the tree and the input: what this parse pushed is
	// cleared, so that a stack kept for the next parse pins nothing. The grown
	// stacks are kept (a huge document's are let go). Not cleared: the stacks
	// a reused arena keeps after a shared parse of input up to shareLimit,
	// which point only into that arena's nodes and the caller's input (at most
	// shareLimit bytes pinned until the next parse; clearing them took 0.7 % of
	// aoplint's CPU, a memclr with a write barrier per pointer while the GC marks).
	if !shared || p.own || ar.scratch != sc {
		clear(p.members[:max(p.membersHigh, len(p.members))])
		clear(p.items[:max(p.itemsHigh, len(p.items))])
	}
	sc.members, sc.items = p.members[:0], p.items[:0]
	if cap(p.members) > 4096 || cap(p.items) > 4096 {
		sc.members, sc.items = nil, nil
	}
	sc.buf = p.buf[:0]
	if cap(p.buf) > shareLimit {
		sc.buf = nil // (bytes, which pin nothing; a huge string's are let go)
	}
	return root, p.problems, err
}

// document reads the one JSON value of p.data. The tree's strings are cut from
// src: a copy of the input (Parse), the input itself (shared), or, for an input
// over shareLimit, the input itself and then each made a copy (ownStrings).
func (p *parser) document(shared bool) (*Node, error) {
	data := p.data
	switch {
	case len(data) > shareLimit:
		// The input itself, read as a string; the tree's strings are
		// made copies once it is read (ownStrings): none points into it.
		p.src, p.own = unsafe.String(unsafe.SliceData(data), len(data)), true
	case shared:
		p.src = unsafe.String(unsafe.SliceData(data), len(data))
	default:
		// One copy of the input, whose substrings the strings and numbers
		// share: one allocation instead of one per value.
		p.src = string(data)
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos = 3
		p.problems = append(p.problems, Problem{Offset: 0, Code: "bom", Message: "the input starts with a UTF-8 byte-order mark; JSON text must not (RFC 8259 §8.1)"})
	}
	p.skipWS()
	if p.pos >= len(p.data) {
		return nil, &SyntaxError{Offset: p.pos, Code: "empty", Msg: "no JSON value: the input is empty"}
	}
	root, err := p.value(0)
	if p.dropped > 0 {
		p.problems = append(p.problems, Problem{Offset: p.lastDup, Code: "duplicate-key",
			Message: fmt.Sprintf("%d more duplicate keys were found and not reported (limit %d per document)", p.dropped, MaxProblems)})
	}
	if err != nil {
		return nil, err
	}
	if p.own {
		ownStrings(root)
	}
	p.skipWS()
	if p.pos < len(p.data) {
		return root, &SyntaxError{Offset: p.pos, Code: "trailing", Msg: fmt.Sprintf("trailing data after the JSON value: %s", p.near())}
	}
	return root, nil
}

// ownStrings makes every string of the tree at n (keys, strings, number
// literals) a copy of its own: none points into the input any more.
func ownStrings(n *Node) {
	n.Str = strings.Clone(n.Str)
	for _, it := range n.Items {
		ownStrings(it)
	}
	for i := range n.Members {
		m := &n.Members[i]
		m.Key = strings.Clone(m.Key)
		ownStrings(m.Value)
	}
}

// scratch is the parser's reusable stacks.
type scratch struct {
	members []Member
	items   []*Node
	path    []step
	buf     []byte // strRest's
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// shareLimit is the largest input whose values share one copy of it; the values
// of a larger one get their own copies, so that a string kept from a huge message
// (an ID in a sequence rule's state) does not keep the whole message alive.
const shareLimit = 64 << 10

type parser struct {
	data []byte
	// src is data as a string: a copy of it (Parse), or data itself
	// (ParseShared, or an input over shareLimit: own).
	src string
	own bool // src is the input over shareLimit: the tree's strings are made copies at the end
	// members and items are the stacks of the objects and arrays being read:
	// an object's members are pushed as they are read and copied into a slice
	// of their exact size cut from the arena when it closes. membersHigh and
	// itemsHigh are the most each held (what the parse clears at its end).
	members     []Member
	items       []*Node
	membersHigh int
	itemsHigh   int
	pos         int
	problems    []Problem
	slab        []Node // nodes are cut from the arena's slabs: one allocation for many nodes
	cut         int    // the nodes of slab already cut (an index, not a reslice: no write barrier)
	ar          *Arena // where the tree goes
	reuse       bool   // ar is reused: whole slabs, kept after the parse
	values      int    // nodes made so far, bounded by MaxValues
	dropped     int    // duplicate keys past MaxProblems
	lastDup     int    // offset of the last duplicate key dropped
	buf         []byte // strRest's decoded bytes
	path        []step // where the parser is, to name a duplicate key's pointer: path[d] is the step of the array or object at depth d being read (MaxDepth+1 long)
	watchBit    uint32 // the arena's WatchKey bit (0: no key watched)
}

// step is one level of the parser's path: an object key or an array index. The
// key is kept as its offset (decoded again only to name a duplicate key's
// pointer), so the path holds no pointers: setting a step costs no write barrier.
type step struct {
	keyOff int // an object key's offset (its opening quote)
	index  int // -1 for an object key
}

// pointer renders the path to the member or item being read at depth as a
// JSON Pointer (only when one is reported).
func (p *parser) pointer(depth int) string {
	var b strings.Builder
	for _, st := range p.path[:depth+1] {
		b.WriteByte('/')
		if st.index >= 0 {
			b.WriteString(strconv.Itoa(st.index))
		} else {
			b.WriteString(EscapeToken(p.keyAt(st.keyOff)))
		}
	}
	return b.String()
}

// keyAt decodes again the key whose opening quote is at off (read once already
// without error).
func (p *parser) keyAt(off int) string {
	q := parser{data: p.data, src: p.src, pos: off}
	key, _ := q.str()
	return key
}

// newNode cuts a node from the parser's slab (the caller sets it with
// Node.set).
func (p *parser) newNode() *Node {
	if p.cut < len(p.slab) {
		p.cut++
		return &p.slab[p.cut-1] // (so written, newNode is small enough to be inlined)
	}
	return p.refill()
}

// refill takes a new slab of nodes and cuts its first: what is left of the
// arena's, or a fresh one sized by the input left to read from about p.pos
// (protocol messages hold about one value per 25 bytes), so that a small
// message makes one small slab.
func (p *parser) refill() *Node {
	p.slab, p.cut = p.ar.nodes.rest((len(p.data)-p.pos)/28+4, p.reuse), 1
	return &p.slab[0]
}

// The words Node.set writes at once: Kind, Bool, nkeys and keys are the
// node's first eight bytes, keysOf the next eight.
var (
	_ [unsafe.Offsetof(Node{}.keys) - 4]struct{}
	_ [4 - unsafe.Offsetof(Node{}.keys)]struct{}
	_ [unsafe.Offsetof(Node{}.keysOf) - 8]struct{}
	_ [8 - unsafe.Offsetof(Node{}.keysOf)]struct{}
	_ [unsafe.Offsetof(Node{}.Bool) - 1]struct{}
	_ [unsafe.Offsetof(Node{}.nkeys) - 2]struct{}
	_ [2 - unsafe.Offsetof(Node{}.nkeys)]struct{}
)

// set makes n a node of kind k from off to end, with Str s, and nothing else.
// n may hold a node of before the arena's Reset: every field is set, but a
// pointer only when it changes (a write costs a barrier while the GC marks,
// and most nodes of a slab are fresh, or were strings).
func (n *Node) set(k Kind, off, end int, s string) {
	*(*uint64)(unsafe.Pointer(n)) = uint64(k) // Kind k; Bool, nkeys, keys zero
	n.Offset, n.End = off, end
	if s != "" || n.Str != "" {
		n.Str = s
	}
	if uintptr(unsafe.Pointer(n.keysOf))|uintptr(unsafe.Pointer(unsafe.SliceData(n.Items)))|uintptr(unsafe.Pointer(unsafe.SliceData(n.Members))) != 0 {
		n.keysOf, n.Items, n.Members = nil, nil, nil
	}
}

// dupScanMax is the members an object's keys are compared with one by one to
// find a duplicate; a larger object indexes its keys in a map. Comparing strings
// of different lengths costs next to nothing, a map costs an allocation.
const dupScanMax = 32

// slabMax is the most elements of one slab.
const slabMax = 256

func (p *parser) near() string {
	end := p.pos + 20
	if end > len(p.data) {
		end = len(p.data)
	}
	s := string(p.data[p.pos:end])
	if !utf8.ValidString(s) {
		return fmt.Sprintf("byte 0x%02x", p.data[p.pos])
	}
	return strconv.Quote(s)
}

func (p *parser) errf(code, format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Code: code, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipWS() { p.pos = skipWS(p.src, p.pos) }

// skipWS returns the position of the first byte at or after pos that is not
// JSON whitespace (len(data) if there is none).
func skipWS(data string, pos int) int {
	if uint(pos) < uint(len(data)) && data[pos] > ' ' {
		return pos // the usual case: compact JSON
	}
	return skipWSLoop(data, pos)
}

func skipWSLoop(data string, pos int) int {
	for pos < len(data) {
		switch data[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			return pos
		}
	}
	return pos
}

func (p *parser) value(depth int) (*Node, error) {
	if depth > MaxDepth {
		return nil, p.errf("depth", "nesting deeper than %d levels", MaxDepth)
	}
	if p.values++; p.values > MaxValues {
		return nil, p.errf("values", "more than %d values in one document", MaxValues)
	}
	if p.pos >= len(p.data) {
		return nil, p.errf("syntax", "unexpected end of input")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n := p.newNode()
		n.set(String, start, p.pos, s)
		return n, nil
	case c == 't':
		return p.literal("true", Bool, true)
	case c == 'f':
		return p.literal("false", Bool, false)
	case c == 'n':
		return p.literal("null", Null, false)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errf("syntax", "invalid character %s looking for a JSON value", p.near())
	}
}

func (p *parser) literal(word string, k Kind, b bool) (*Node, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errf("syntax", "invalid literal %s (expected %s)", p.near(), word)
	}
	n := p.newNode()
	n.set(k, p.pos, p.pos+len(word), "")
	p.pos += len(word)
	n.Bool = b
	return n, nil
}

// number reads a number literal (RFC 8259 §6) at p.pos, with the position in a
// local while it scans.
func (p *parser) number() (*Node, error) {
	data, pos := p.src, p.pos // read as a string: the literal is cut from it
	start := pos
	if data[pos] == '-' {
		pos++
	}
	switch {
	case pos < len(data) && data[pos] == '0':
		pos++
	case pos < len(data) && data[pos]-'1' < 9:
		pos = digitsEnd(data, pos+1)
	default:
		p.pos = pos
		return nil, p.errf("syntax", "invalid number")
	}
	if pos < len(data) && data[pos] == '.' {
		end := digitsEnd(data, pos+1)
		if end == pos+1 {
			p.pos = end
			return nil, p.errf("syntax", "invalid number: no digits after the decimal point")
		}
		pos = end
	}
	if pos < len(data) && (data[pos] == 'e' || data[pos] == 'E') {
		pos++
		if pos < len(data) && (data[pos] == '+' || data[pos] == '-') {
			pos++
		}
		end := digitsEnd(data, pos)
		if end == pos {
			p.pos = end
			return nil, p.errf("syntax", "invalid number: no digits in the exponent")
		}
		pos = end
	}
	p.pos = pos
	n := p.newNode()
	n.set(Number, start, pos, data[start:pos])
	return n, nil
}

// digitsEnd returns the position of the first byte at or after pos that is not
// a decimal digit.
func digitsEnd(data string, pos int) int {
	for pos < len(data) && data[pos]-'0' < 10 {
		pos++
	}
	return pos
}
func (p *parser) str() (string, error) {
	// Fast path: no escapes, ASCII or valid UTF-8. The position is a local
	// (not p.pos) while it runs: a register, not a load and a store per word.
	data := p.src
	pos := p.pos + 1 // past the opening quote
	start := pos
	ascii := true
	for pos < len(data) {
		// Eight bytes at a time while none of them ends the fast path or is
		// non-ASCII (plainEnd, inlined).
		pos = plainEnd(data, pos)
		if pos >= len(data) {
			break
		}
		c := data[pos]
		if c == '"' {
			p.pos = pos + 1
			if !ascii && !utf8.ValidString(data[start:pos]) {
				return "", invalidUTF8(start)
			}
			return data[start:pos], nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		pos++
	}
	p.pos = pos
	return p.strRest(start)
}

// plainEnd returns the index of the first byte of data at or after pos that
// is '"', '\\', a control character or non-ASCII, read eight bytes at a time;
// or, when there is none in the whole words from pos, where the words end
// (the bytes after are not read). Small enough to be inlined: the object loop
// reads a plain key without a call (a string value by plainEndCall), anything
// else by str.
func plainEnd(data string, pos int) int {
	for pos+8 <= len(data) {
		if m := specialBytes(binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(data)), pos))[:])); m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	return pos
}

// plainEndCall is plainEnd, called: the object loop reads a string value by it
// (values are longer than keys: the loop runs about three times). Inlined
// there, the loop's registers are taken back from the object loop's values and
// those are loaded again at each turn (objdump); called, they are saved once
// (callgrind aoplint -j 1 t20k: 2.6 M fewer instructions; for keys, called
// costs 4.6 M more).
//
//go:noinline
func plainEndCall(data string, pos int) int { return plainEnd(data, pos) }

// strAt is str of the string at pos, and the position past it.
func (p *parser) strAt(pos int) (string, int, error) {
	p.pos = pos
	s, err := p.str()
	return s, p.pos, err
}

// invalidUTF8 is the error of a string starting at off that is not UTF-8.
func invalidUTF8(off int) error {
	return &SyntaxError{Offset: off, Code: "utf8", Msg: "string contains invalid UTF-8"}
}

// strRest reads the rest of a string that starts at start (past its opening
// quote) from p.pos, the first byte str's fast path does not read (an escape,
// a control character, or the end of the input): a function of its own, so
// that the fast path's frame is small.
func (p *parser) strRest(start int) (string, error) {
	// The decoded bytes go to the parser's buffer (kept from string to
	// string, and from parse to parse with the stacks), and become a string
	// once, at the closing quote. The position is a local, stored back in
	// p.pos before an error and around hex4.
	data, pos := p.data, p.pos
	b := append(p.buf[:0], data[start:pos]...)
	defer func() { p.buf = b[:0] }()
	for {
		if pos >= len(data) {
			p.pos = pos
			return "", p.errf("syntax", "unterminated string")
		}
		c := data[pos]
		switch {
		case c == '"':
			p.pos = pos + 1
			if !utf8.Valid(b) {
				return "", invalidUTF8(start)
			}
			return string(b), nil
		case c < 0x20:
			p.pos = pos
			return "", p.errf("syntax", "control character 0x%02x in string (escape it)", c)
		case c == '\\':
			pos++
			if pos >= len(data) {
				p.pos = pos
				return "", p.errf("syntax", "unterminated escape")
			}
			e := data[pos]
			pos++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				p.pos = pos
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					// As encoding/json: the next escape is taken only when it
					// completes a valid pair; otherwise r is U+FFFD and that
					// escape is read on its own.
					r2 := rune(-1)
					if p.pos+6 <= len(data) && data[p.pos] == '\\' && data[p.pos+1] == 'u' {
						if v, ok := hexAt(data, p.pos+2); ok {
							r2 = v
						}
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						p.pos += 6
					} else {
						r = utf8.RuneError
					}
				}
				pos = p.pos
				b = utf8.AppendRune(b, r)
			default:
				p.pos = pos - 1
				return "", p.errf("syntax", "invalid escape \\%c in string", e)
			}
		default:
			// A run of plain bytes, written at once (its UTF-8 is checked
			// with the whole string's); found eight bytes at a time while
			// eight are left.
			j := pos + 1
			for j+8 <= len(data) {
				if m := stopBytes(binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(data)), j))[:])); m != 0 {
					j += bits.TrailingZeros64(m) >> 3
					goto runEnd
				}
				j += 8
			}
			for j < len(data) && data[j] != '"' && data[j] != '\\' && data[j] >= 0x20 {
				j++
			}
		runEnd:
			b = append(b, data[pos:j]...)
			pos = j
		}
	}
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// zeroByte has the high bit of each zero byte of w set, and possibly of bytes
// above a zero byte (a borrow): its lowest set bit is exact.
func zeroByte(w uint64) uint64 { return (w - ones) &^ w & highs }

// specialBytes has the high bit of each byte of w set that is '"', '\\', below
// 0x20 or at least 0x80, and possibly of bytes above such a byte (a borrow): its
// lowest set bit is exact, in the first such byte (little-endian). One
// subtraction finds '"' and the control bytes: xor 0x02 makes '"' 0x20 and
// leaves every control byte below 0x20, and no other byte below 0x80 below
// 0x21. (The usual x-c & ^x of each test is x-c | w here: the bytes tested are
// below 0x80, so x and w have the same high bits, and w is or-ed in anyway.)
func specialBytes(w uint64) uint64 {
	quoteOrControl := w ^ masks.x02
	slash := w ^ masks.slash
	return ((quoteOrControl + masks.minus21) | (slash + masks.minus01) | w) & masks.highs
}

// masks are specialBytes' constants, read from memory by the instructions
// that use them (x86 has no 64-bit immediate operands): as constants, each
// took a register in the loops that call specialBytes, whose values were then
// loaded again at each turn.
var masks = struct{ x02, slash, minus21, minus01, highs uint64 }{
	ones * 0x02, ones * '\\', -(ones * 0x21) & (1<<64 - 1), -ones & (1<<64 - 1), highs,
}

// stopBytes has the high bit of each byte of w set that is '"', '\\' or below
// 0x20 (not of a byte at least 0x80: it is part of a string's UTF-8), and
// possibly of bytes above such a byte (a borrow): its lowest set bit is exact,
// in the first such byte (little-endian).
func stopBytes(w uint64) uint64 {
	quote := w ^ (ones * '"')
	slash := w ^ (ones * '\\')
	return ((quote-ones)&^quote | (slash-ones)&^slash | (w-ones*0x20)&^w) & highs
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errf("syntax", "short \\u escape")
	}
	r, ok := hexAt(p.data, p.pos)
	if !ok {
		return 0, p.errf("syntax", "invalid \\u escape")
	}
	p.pos += 4
	return r, nil
}

// hexAt reads the four hex digits of a \u escape at data[i:i+4] (there are
// four bytes).
func hexAt(data []byte, i int) (rune, bool) {
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func (p *parser) array(depth int) (*Node, error) {
	n := p.newNode()
	n.set(Array, p.pos, 0, "")
	p.pos++
	p.skipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		n.End = p.pos
		return n, nil
	}
	// The items go on the parser's stack, then into a slice of their exact
	// size cut from the arena.
	base := len(p.items)
	at := &p.path[depth] // this array's step: its index set per item
	// (An error ends the parse: the stack is restored on success only.)
	for {
		p.skipWS()
		at.index = len(p.items) - base
		var it *Node
		var err error
		if data, pos := p.src, p.pos; uint(pos) < uint(len(data)) && data[pos] == '"' && depth < MaxDepth && p.values < MaxValues {
			// A string item, as value reads it, plain ones without a call to str.
			p.values++
			var s string
			if end := plainEnd(data, pos+1); uint(end) < uint(len(data)) && data[end] == '"' {
				s, p.pos = data[pos+1:end], end+1
			} else if s, err = p.str(); err != nil {
				return nil, err
			}
			it = p.newNode()
			it.set(String, pos, p.pos, s)
		} else if it, err = p.value(depth + 1); err != nil {
			return nil, err
		}
		p.items = append(p.items, it)
		p.skipWS()
		if p.pos >= len(p.data) {
			return nil, p.errf("syntax", "unexpected end of input in array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.End = p.pos
			pend := p.items[base:]
			items, ok := p.ar.items.cut(len(pend)) // the usual case, inlined
			if !ok {
				items = p.ar.items.takeSlow(len(pend), (len(p.data)-p.pos)/160+4, p.reuse)
			}
			items = items[:len(pend)]
			//lint:ignore S1001 a loop: for a few items cheaper than copy's typedslicecopy (callgrind, c3-parse)
			for i := range pend {
				items[i] = pend[i]
			}
			n.Items = items
			p.itemsHigh = max(p.itemsHigh, len(p.items))
			p.items = p.items[:base]
			return n, nil
		default:
			return nil, p.errf("syntax", "invalid character %s after array element (expected ',' or ']')", p.near())
		}
	}
}

// object reads an object at p.pos. The position is a local while it reads
// (a register, not a load and a store of p.pos per byte looked at), stored
// back before each call that reads from p.pos.
func (p *parser) object(depth int) (*Node, error) {
	data, pos := p.src, p.pos // data is read as a string: its substrings are the keys and values
	n := p.newNode()
	n.set(Object, pos, 0, "")
	pos = skipWS(data, pos+1)
	if pos < len(data) && data[pos] == '}' {
		p.pos = pos + 1
		n.End = p.pos
		return n, nil
	}
	var seen map[string]int
	// keys is the filter of the keys read so far (keyBit): a key whose bit is
	// not in it is no duplicate, and no key is compared. Once an object of
	// dupScanMax members or more has an index of its keys (seen, made by
	// duplicate when a key's bit is in the filter), the filter is full: every
	// key is looked up and added there.
	var keys uint32
	// The members go on the parser's stack, then into a slice of their exact
	// size cut from the arena.
	base := len(p.members)
	// This object's step of the path: its key is set where it is needed, for
	// a value that is read by a call (whose duplicate keys are reported with
	// their path) and for a duplicate key of this object (duplicate).
	p.path[depth].index = -1
	// (An error ends the parse: the stack is restored on success only.)
	for {
		if uint(pos) >= uint(len(data)) || data[pos] != '"' {
			// Whitespace before the key (compact JSON has none).
			if pos = skipWS(data, pos); uint(pos) >= uint(len(data)) || data[pos] != '"' {
				p.pos = pos
				if pos < len(data) && data[pos] == '}' {
					return nil, p.errf("syntax", "trailing comma before '}'")
				}
				return nil, p.errf("syntax", "invalid character %s looking for an object key", p.nearOrEnd())
			}
		}
		keyOff := pos
		var key string
		var err error
		if end := plainEnd(data, pos+1); uint(end) < uint(len(data)) && data[end] == '"' {
			key, pos = data[pos+1:end], end+1 // a plain key, as str reads it
		} else if key, pos, err = p.strAt(pos); err != nil {
			return nil, err
		}
		if uint(pos) < uint(len(data)) && data[pos] == ':' {
			pos++ // the usual case: compact JSON (whitespace after ':' is skipped below)
		} else {
			pos = skipWS(data, pos)
			if pos >= len(data) || data[pos] != ':' {
				p.pos = pos
				return nil, p.errf("syntax", "expected ':' after object key %q", key)
			}
			pos++
		}
		var v *Node
		if uint(pos) < uint(len(data)) && data[pos] == '"' && depth < MaxDepth && p.values < MaxValues {
			// A string value (the most common) read here, as value reads it.
			p.values++
			start := pos
			var s string
			if end := plainEndCall(data, pos+1); uint(end) < uint(len(data)) && data[end] == '"' {
				s, pos = data[pos+1:end], end+1 // a plain string, as str reads it
			} else if s, pos, err = p.strAt(pos); err != nil {
				return nil, err
			}
			if cut := p.cut; cut < len(p.slab) { // newNode, written out (measured: fewer instructions here)
				p.cut, v = cut+1, &p.slab[cut]
			} else {
				v = p.refill()
			}
			v.set(String, start, pos, s)
		} else {
			// Any other value, or one after whitespace.
			pos = skipWS(data, pos)
			p.pos = pos
			p.path[depth].keyOff = keyOff
			var c byte
			if uint(pos) < uint(len(data)) {
				c = data[pos]
			}
			if (c == '{' || c == '[' || c == '-' || c-'0' < 10) && depth < MaxDepth && p.values < MaxValues {
				// An object, array or number, read as value reads it, without its call.
				p.values++
				switch c {
				case '{':
					v, err = p.object(depth + 1)
				case '[':
					v, err = p.array(depth + 1)
				default:
					v, err = p.number()
				}
			} else {
				v, err = p.value(depth + 1)
			}
			if err != nil {
				return nil, err
			}
			pos = p.pos
		}
		kb := keyBit(key)
		if keys&kb != 0 {
			p.duplicate(base, key, keyOff, depth, &seen)
			if seen != nil {
				keys = ^uint32(0) // every key goes to the index from now on
			}
		}
		keys |= kb
		p.members = append(p.members, Member{Key: key, KeyOffset: keyOff, Value: v})
		// ',' or '}', read at once in compact JSON (c is 0 at the end of the
		// input: below ' ', as whitespace, it takes the slow path).
		var c byte
		if uint(pos) < uint(len(data)) {
			c = data[pos]
		}
		if c <= ' ' {
			if pos = skipWS(data, pos); uint(pos) >= uint(len(data)) {
				p.pos = pos
				return nil, p.errf("syntax", "unexpected end of input in object")
			}
			c = data[pos]
		}
		switch c {
		case ',':
			pos++ // (whitespace before the next key is skipped there)
		case '}':
			p.pos = pos + 1
			n.End = p.pos
			pend := p.members[base:]
			ms, ok := p.ar.members.cut(len(pend)) // the usual case, inlined
			if !ok {
				ms = p.ar.members.takeSlow(len(pend), (len(data)-p.pos)/32+4, p.reuse)
			}
			ms = ms[:len(pend)]
			//lint:ignore S1001 a loop: for a few members cheaper than copy's typedslicecopy (callgrind, c3-parse)
			for i := range pend {
				ms[i] = pend[i]
			}
			n.Members = ms
			p.membersHigh = max(p.membersHigh, len(p.members))
			p.members = p.members[:base]
			if seen != nil {
				// keys was filled when the index was made: the filter of
				// the keys is made again.
				keys = 0
				for i := range ms {
					keys |= keyBit(ms[i].Key)
				}
			}
			if len(ms) <= math.MaxUint16 {
				n.keys, n.nkeys, n.keysOf = keys, uint16(len(ms)), unsafe.SliceData(ms)
			}
			if keys&p.watchBit != 0 {
				p.watched(ms)
			}
			return n, nil
		default:
			p.pos = pos
			return nil, p.errf("syntax", "invalid character %s after object value (expected ',' or '}')", p.near())
		}
	}
}

// watched notes whether an object's members hold the arena's watched key (its
// filter of keys says they may).
func (p *parser) watched(ms []Member) {
	for i := range ms {
		if ms[i].Key == p.ar.watch {
			p.ar.sawWatch = true
			return
		}
	}
}

// duplicate reports key, at keyOff in the object at depth whose members so far
// are p.members[base:], if one of them has it: compared one by one, or in
// *seen, the index of the keys of an object of dupScanMax members or more
// (made here, from all its members so far: compared one by one, at most
// dupScanMax of them are).
func (p *parser) duplicate(base int, key string, keyOff, depth int, seen *map[string]int) {
	cur := p.members[base:]
	dup := false
	if len(cur) >= dupScanMax && *seen == nil {
		*seen = make(map[string]int, 16)
		for i := range cur {
			(*seen)[cur[i].Key] = i
		}
	}
	if *seen != nil {
		_, dup = (*seen)[key]
		(*seen)[key] = len(cur)
	} else {
		for i := range cur {
			if k := cur[i].Key; len(k) == len(key) && k == key {
				dup = true
				break
			}
		}
	}
	if !dup {
		return
	}
	if len(p.problems) >= MaxProblems {
		p.dropped++
		p.lastDup = keyOff
		return
	}
	p.path[depth].keyOff = keyOff
	p.problems = append(p.problems, Problem{Offset: keyOff, Pointer: p.pointer(depth), Code: "duplicate-key",
		Message: fmt.Sprintf("duplicate key %q: parsers disagree on which value wins; keep one", key)})
}

func (p *parser) nearOrEnd() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	return p.near()
}
