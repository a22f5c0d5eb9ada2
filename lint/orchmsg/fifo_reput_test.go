package orchmsg

import "testing"

// TestWindowReputKeepsNewest: a key deleted and put again while its old
// place is still queued is the newest entry of the window; when that put
// passes the bound, the oldest entry must go (MaxTracked: "the oldest entries
// are dropped"), not the key just put, as seqgroup.Bounded does. The shared
// id table's windows use the same queue.
func TestWindowReputKeepsNewest(t *testing.T) {
	t.Parallel()
	w := newWindow(2, &windowPool[int]{})
	w.put("a", 1)
	w.del("a") // answered: its place stays queued
	w.put("b", 2)
	w.put("c", 3)
	if !w.put("a", 4) {
		t.Fatal("put past the bound dropped nothing")
	}
	if v, ok := w.get("a"); !ok || v != 4 {
		t.Errorf("the key just put was dropped (get a = %v, %v); want the oldest, b, dropped", v, ok)
	}
	if _, ok := w.get("b"); ok {
		t.Error("the oldest entry, b, was kept")
	}

	var tab idTable
	iw := newIDWindow(&tab, idReqs, 2, func(s *idSlot) *mark { return &s.reqs })
	iw.put("a", mark{line: 1})
	iw.del("a")
	iw.put("b", mark{line: 2})
	iw.put("c", mark{line: 3})
	iw.put("a", mark{line: 4})
	if v, ok := iw.get("a"); !ok || v.line != 4 {
		t.Errorf("id window: the key just put was dropped (get a = %v, %v)", v, ok)
	}
	iw.release()
}
