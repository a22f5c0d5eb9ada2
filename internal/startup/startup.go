// Package startup prepares a short-lived command's goroutine stacks. A goroutine
// starts with a small stack that the runtime doubles, by copying it, each time
// it runs out; each copy walks every frame on the stack and decodes its tables,
// so the copies made deep in package initialisation (regexp compilation) and in
// aoplint's lint of a file (the parser's recursion) cost a run more than the work
// they interrupt (aoplint response.json: 4 copies, ~108k of its ~1.5M
// instructions under callgrind). GrowStack makes the copy once, while the stack
// is shallow.
//
// The package's own init grows the main goroutine's stack: having no
// dependencies and a path that sorts before github.com/aopkit/aopkit/lint,
// gopkg.in, regexp and text/template, it initialises before them (Go initialises
// ready packages in import-path order).
package startup

func init() { GrowStack() }

// GrowStack grows the calling goroutine's stack to at least 32 KiB at once.
func GrowStack() { growStack(0) }

// growStack needs a 16 KiB frame: a smaller stack is doubled until the frame
// fits, in one copy.
//
//go:noinline
func growStack(i int) byte {
	var buf [16 << 10]byte
	buf[i] = 1
	return buf[i/2]
}
