// Command gentranscript writes a benchmark transcript (see package transcriptgen):
//
//	go run ./lint/internal/transcriptgen/gentranscript -messages 1000000 -o /tmp/t.jsonl
//	go run ./lint/internal/transcriptgen/gentranscript -small -o response.json
//
// It lives here because the generator is internal to lint/; internal/cmd/aopbench runs it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gentranscript", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg     transcriptgen.Config
		out     = fs.String("o", "-", "output file (- for standard output)")
		protos  = fs.String("protocols", "", "comma-separated protocols (default: all five)")
		framing = fs.String("framing", "mixed", "mixed, bare or records")
		quiet   = fs.Bool("q", false, "do not print the statistics on standard error")
		small   = fs.Bool("small", false, "write the 2 KB aop2 RESPONSE of the spec instead of a transcript")
	)
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed (same seed, same bytes)")
	fs.Int64Var(&cfg.Messages, "messages", 0, "stop after at least this many messages")
	fs.Int64Var(&cfg.Bytes, "bytes", 0, "stop after at least this many bytes")
	fs.IntVar(&cfg.InvalidEvery, "invalid-every", 1000, "break one message in N on purpose (0: none)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch *framing {
	case "mixed":
		cfg.Framing = transcriptgen.Mixed
	case "bare":
		cfg.Framing = transcriptgen.Bare
	case "records":
		cfg.Framing = transcriptgen.Records
	default:
		fmt.Fprintf(stderr, "gentranscript: unknown framing %q: use mixed, bare or records\n", *framing)
		return 2
	}
	if *protos != "" {
		cfg.Protocols = strings.Split(*protos, ",")
	}
	w := stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(stderr, "gentranscript:", err)
			return 2
		}
		defer f.Close()
		w = f
	}
	if *small {
		if _, err := w.Write(transcriptgen.SmallResponse); err != nil {
			fmt.Fprintln(stderr, "gentranscript:", err)
			return 2
		}
		return 0
	}
	st, err := transcriptgen.Write(w, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "gentranscript:", err)
		return 2
	}
	if !*quiet {
		fmt.Fprintln(stderr, st)
	}
	return 0
}
