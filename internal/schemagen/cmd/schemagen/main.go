// Command schemagen writes lint/schema/generated/validators.go from schemas/
// (run by `go generate ./lint/schema/generated`).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/aopkit/aopkit/internal/schemagen"
	"github.com/aopkit/aopkit/schemas"
)

func main() {
	out := flag.String("o", "validators.go", "output file")
	flag.Parse()
	src, err := schemagen.Generate(schemas.FS, schemas.BaseURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}
