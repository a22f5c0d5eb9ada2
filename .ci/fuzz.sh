#!/usr/bin/env bash
# Run every fuzz target of the repository (go test -fuzz takes one target of one
# package at a time) for FUZZTIME each (default 60s). `make fuzz` calls this.
#
#   .ci/fuzz.sh [--list] [PACKAGE...]      (default: ./...)
#
# The targets are found, never named here: `go test -list 'Fuzz.*'` of each
# package (a package whose tests do not build fails the run, instead of
# counting no targets). --list prints them, "PACKAGE TARGET" a line, and
# fuzzes nothing (TestFuzzScript checks it against the sources).
#
# Go's fuzz coordinator before go1.27 may fail a target at the end of its
# -fuzztime with "context deadline exceeded" and no failing input (a race
# between its deadline and its workers' context: go.dev/issue/75804). Such a
# run, and only such a run, is repeated once; a failure that wrote a failing
# input, or any other failure, fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
list=false
if [[ ${1:-} == --list ]]; then
  list=true
  shift
fi
(($#)) || set -- ./...

# targets prints "PACKAGE TARGET" for each fuzz target of the packages.
targets() {
  local pkg out
  for pkg in $($GO list "$@"); do
    if ! out=$($GO test -list 'Fuzz.*' "$pkg" 2>&1); then
      printf '%s\n' "$out" >&2
      echo "fuzz: cannot list the fuzz targets of $pkg" >&2
      return 1
    fi
    printf '%s\n' "$out" | sed -n "s|^\(Fuzz[A-Za-z0-9_]*\)\$|$pkg \1|p"
  done
}

# fuzz runs one target; on the coordinator's deadline flake, once more.
fuzz() {
  local pkg=$1 t=$2 log attempt status=1
  log=$(mktemp)
  for attempt in 1 2; do
    if $GO test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" 2>&1 | tee "$log"; then
      status=0
      break
    fi
    if ((attempt == 1)) && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
      echo "fuzz: $pkg $t: \"context deadline exceeded\" without a failing input (Go's fuzz coordinator, go.dev/issue/75804): running it once more" >&2
      continue
    fi
    break
  done
  rm -f "$log"
  return $status
}

all=$(targets "$@")
if $list; then
  [[ -z $all ]] || printf '%s\n' "$all"
  exit 0
fi
n=0
while read -r pkg t; do
  [[ -n $pkg ]] || continue
  echo "== $pkg $t"
  fuzz "$pkg" "$t" </dev/null
  n=$((n + 1))
done <<<"$all"
echo "fuzz: $n targets passed, $FUZZTIME each"
