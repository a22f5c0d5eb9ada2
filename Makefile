# aopkit — build, test, lint, refresh goldens, benchmark.
GO      ?= go
BIN     ?= bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# The version every command prints (--version) and writes into reports.
LDFLAGS := -s -w -X github.com/aopkit/aopkit/internal/version.Override=$(VERSION)

.PHONY: all build test lint generate golden bench fuzz soak clean

all: lint test

# The user-facing commands (the developer tool aopbench is not one of them).
build:
	$(GO) build -trimpath -tags urfave_cli_no_docs -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/aoplint ./cmd/aopconform ./cmd/mockagent

# The README's test command, what CI runs.
test:
	bash .ci/run

lint:
	$(GO) vet ./...
	$(GO) vet -tags aoplint_pprof ./internal/cmd/aoplint
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Rewrite every golden file from the current behaviour; review the diff before committing.
golden:
	$(GO) test ./lint/all -run TestFixtures -u
	$(GO) test ./cmd/aoplint -run RulesDoc -u
	$(GO) test ./conform/requirements -run TestCoverageDoc -u

# Regenerate every generated file: the schema validators, docs/rules.md,
# docs/coverage.md and docs/aopconform.md's tables of checks and faults (the
# fault matrix runs every fault: minutes). Each has a test that fails while it
# is stale. docs/benchmarks.md is measured, not generated: make bench.
generate:
	$(GO) generate ./...
	$(GO) test ./cmd/aoplint -run RulesDoc -u
	$(GO) test ./conform/requirements -run TestCoverageDoc -u
	$(GO) test -count=1 ./cmd/aopconform -run 'TestChecksDoc|TestFaultMatrix' -update

bench:
	bash .ci/bench/run

# Run every fuzz target of the repository for FUZZTIME (default 60s).
FUZZTIME ?= 60s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash .ci/fuzz.sh

# Soak: third-party agents (testdata/agents) against aopconform at default settings,
# ten times each, under stress-ng --cpu 4; prints pass/fail counts (SOAK_N, SOAK_BUG_N,
# SOAK_JOBS, SOAK_CPU tune it).
soak: build
	sh testdata/agents/soak.sh $(BIN)

clean:
	rm -rf $(BIN)
