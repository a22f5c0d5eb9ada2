#!/usr/bin/env bash
# Run every fuzz target of the repository (go test -fuzz takes one target of one
# package at a time) for FUZZTIME each (default 60s). `make fuzz` calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
n=0
for pkg in $($GO list ./...); do
  for t in $($GO test -list 'Fuzz.*' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $t"
    $GO test "$pkg" -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME"
    n=$((n+1))
  done
done
echo "fuzz: $n targets passed, $FUZZTIME each"
