package seqgroup

import "unsafe"

// Names makes owned copies of the strings a sequence state keeps past their
// message: a string of a message points into its line (lint.Message), and one
// kept would keep the whole line alive for as long as the state. A string equal
// to one of the last handed out is that one; else a short one is copied again
// (ids and names of a few dozen bytes: a copy costs less than interning it,
// whose map also held some 8 MiB over the open sessions at 1.5M messages), and
// a long one (past MaxCopied bytes) is interned, so that no state keeps many
// copies of a long value. Its zero value is empty and ready to use.
type Names struct {
	m map[string]string // the long strings
	// recent are the last strings handed out: a session's messages repeat its
	// ids and names, found here without hashing.
	recent [8]string
	next   int
}

// MaxCopied is the longest string Names copies without interning it.
const MaxCopied = 64

// Own returns an owned copy of s, equal to it; the map of long strings holds
// at most max strings (past it, it starts over: the strings handed out stay
// valid).
func (n *Names) Own(s string, max int) string {
	if s == "" {
		return ""
	}
	// s's bytes, only read here: a new name is copied before it is kept.
	return n.OwnBytes(unsafe.Slice(unsafe.StringData(s), len(s)), max)
}

// OwnAs is Own for a string whose last value (owned, by an earlier OwnAs) is
// *last: one comparison when it has not changed (the messages of one task
// follow one another), else Own, and *last becomes the new value.
func (n *Names) OwnAs(last *string, s string, max int) string {
	if len(*last) == len(s) && *last == s {
		return *last
	}
	o := n.Own(s, max)
	*last = o
	return o
}

// OwnBytes returns an owned string equal to b, as Own.
func (n *Names) OwnBytes(b []byte, max int) string {
	if len(b) == 0 {
		return ""
	}
	for _, r := range &n.recent {
		if len(r) == len(b) && r == string(b) {
			return r
		}
	}
	var o string
	if len(b) > MaxCopied {
		o = n.m[string(b)] // "" when absent (b is not)
	}
	if o == "" {
		o = string(b)
		if len(b) > MaxCopied {
			if n.m == nil || len(n.m) >= max {
				n.m = map[string]string{} // small: most sessions keep few long strings
			}
			n.m[o] = o
		}
	}
	n.recent[n.next%len(n.recent)] = o
	n.next++
	return o
}

// Len is the number of strings in the map (long ones).
func (n *Names) Len() int { return len(n.m) }

// DropMap lets the map go (a grown one is not worth keeping for the next
// session); the recent strings stay.
func (n *Names) DropMap() { n.m = nil }
