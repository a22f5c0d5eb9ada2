package seqgroup

import (
	"fmt"
	"testing"
)

// TestTableForgetsOldest: past its bound a table forgets its oldest entries,
// says so once, and deletions do not let its queue grow without bound.
func TestTableForgetsOldest(t *testing.T) {
	t.Parallel()
	b := NewTable(3, &BoundedPool[int]{})
	reported := 0
	for i := 0; i < 10; i++ {
		if b.Put(fmt.Sprint(i), i) {
			reported++
		}
		b.Delete(fmt.Sprint(i - 1)) // deletions must not let order grow without bound
	}
	if b.Len() > 3 || len(b.Order()) > 6 {
		t.Fatalf("table grew: %d entries, %d order", b.Len(), len(b.Order()))
	}
	b2 := NewTable(3, &BoundedPool[int]{})
	for i := 0; i < 10; i++ {
		if b2.Put(fmt.Sprint(i), i) {
			reported++
		}
	}
	if _, ok := b2.Get("0"); ok {
		t.Error("oldest entry was kept")
	}
	if _, ok := b2.Get("9"); !ok {
		t.Error("newest entry was forgotten")
	}
	if reported != 1 {
		t.Errorf("eviction reported %d times, want once", reported)
	}
}

// TestTableRelease: a released table is empty, and a table that takes its
// buffers from the pool starts empty (nothing of the last session stays).
func TestTableRelease(t *testing.T) {
	pool := &BoundedPool[int]{}
	a := NewTable(8, pool)
	a.Put("x", 1)
	a.Release()
	if _, ok := a.Get("x"); ok || a.Len() != 0 || len(a.Order()) != 0 {
		t.Fatal("a released table still holds its entries")
	}
	b := NewTable(8, pool)
	b.Put("y", 2)
	if _, ok := b.Get("x"); ok || b.Len() != 1 {
		t.Errorf("a table from the pool holds old entries (len %d)", b.Len())
	}
	a.Put("z", 3) // used after release: new buffers
	if v, ok := a.Get("z"); !ok || v != 3 {
		t.Error("put after release lost")
	}
}
