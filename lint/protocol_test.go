package lint

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestKindMemo: Get answers as F does; F runs once per kind with an answer
// (also under several goroutines, run with -race), every time for a kind
// without one, and every time for kinds past maxMemoKinds; a kept key does not
// share the caller's bytes.
func TestKindMemo(t *testing.T) {
	var calls sync.Map // kind → *atomic.Int32
	f := func(kind string) string {
		c, _ := calls.LoadOrStore(kind, new(atomic.Int32))
		c.(*atomic.Int32).Add(1)
		if kind == "" || kind[0] == '-' {
			return "" // no answer
		}
		return "schema/" + kind + ".json"
	}
	count := func(kind string) int32 {
		c, ok := calls.Load(kind)
		if !ok {
			return 0
		}
		return c.(*atomic.Int32).Load()
	}
	km := KindMemo{F: f}
	kinds := make([]string, maxMemoKinds+8)
	for i := range kinds {
		kinds[i] = "k" + strconv.Itoa(i)
	}
	// Every kind once, in order, so the first maxMemoKinds are the kept ones.
	for _, k := range kinds {
		if got, want := km.Get(k), f(k); got != want {
			t.Fatalf("Get(%q) = %q, want %q", k, got, want)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 50; r++ {
				for _, k := range append(kinds, "-none", "") {
					if got, want := km.Get(k), "schema/"+k+".json"; k != "" && k[0] != '-' && got != want {
						t.Errorf("Get(%q) = %q, want %q", k, got, want)
						return
					} else if (k == "" || k[0] == '-') && got != "" {
						t.Errorf("Get(%q) = %q, want no answer", k, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for i, k := range kinds {
		n := count(k)
		switch {
		case i < maxMemoKinds && n != 2: // the test's own f(k) and the first Get
			t.Errorf("F(%q) ran %d times, want 2 (the first Get and the test's)", k, n)
		case i >= maxMemoKinds && n != 2+4*50:
			t.Errorf("F(%q) past the bound ran %d times, want %d", k, n, 2+4*50)
		}
	}
	if n := count("-none"); n != 4*50 {
		t.Errorf("F(-none) ran %d times, want %d (no answer: never kept)", n, 4*50)
	}
	// The key kept is a copy: overwriting the caller's bytes changes nothing.
	line := []byte("zkind")
	km2 := KindMemo{F: f}
	km2.Get(unsafe.String(&line[0], len(line))) // a string of the line, as the driver passes
	kept := (*km2.known.Load())[0].kind
	line[0] = 'X'
	if kept != "zkind" || km2.Get("zkind") != "schema/zkind.json" {
		t.Errorf("kept key %q after the caller's bytes changed, want \"zkind\"", kept)
	}
}

// TestRegisterProtocol: registering the same value again does nothing,
// another value under a registered ID panics; Protocols is sorted by ID,
// ListedProtocols in the order of registration, and ProtocolNames says it.
func TestRegisterProtocol(t *testing.T) {
	old, oldOrder := protoList.Load(), protoOrder.Load()
	defer func() { protoList.Store(old); protoOrder.Store(oldOrder) }()
	protoList.Store(nil)
	protoOrder.Store(nil)
	b, a := &Protocol{ID: "b"}, &Protocol{ID: "a"}
	RegisterProtocol(b)
	RegisterProtocol(a)
	RegisterProtocol(b)
	if got := ProtocolIDs(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("ProtocolIDs = %v, want [a b]", got)
	}
	if got := ListedProtocolIDs(); len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Errorf("ListedProtocolIDs = %v, want [b a]", got)
	}
	if got := ProtocolNames("or"); got != "b or a" {
		t.Errorf("ProtocolNames = %q", got)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("another protocol under a registered ID did not panic")
			}
		}()
		RegisterProtocol(&Protocol{ID: "a"})
	}()
	for _, tc := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"x"}, "x"}, {[]string{"x", "y", "z"}, "x, y and z"}} {
		if got := JoinWords(tc.in, "and"); got != tc.want {
			t.Errorf("JoinWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
