package main

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"strings"
)

// binaryFacts is what start-up pays for before main: the size of the executable,
// whether the dynamic loader runs first, and the modules linked in.
type binaryFacts struct {
	Size    int64
	Dynamic bool     // has an ELF interpreter (ld.so runs before the Go runtime)
	Modules []string // module paths of the dependencies linked in
	Go      string   // toolchain
}

// inspectBinary reads the facts of the executable at path.
func inspectBinary(path string) (binaryFacts, error) {
	var f binaryFacts
	st, err := os.Stat(path)
	if err != nil {
		return f, err
	}
	f.Size = st.Size()
	if ef, err := elf.Open(path); err == nil {
		for _, p := range ef.Progs {
			if p.Type == elf.PT_INTERP {
				f.Dynamic = true
			}
		}
		ef.Close()
	}
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return f, err
	}
	f.Go = bi.GoVersion
	for _, d := range bi.Deps {
		f.Modules = append(f.Modules, d.Path)
	}
	return f, nil
}

// links reports whether a module whose path contains name is linked in.
func (f binaryFacts) links(name string) bool {
	for _, m := range f.Modules {
		if strings.Contains(m, name) {
			return true
		}
	}
	return false
}
