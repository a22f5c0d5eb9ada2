#!/bin/sh
# Soak: run the third-party agents of testdata/agents (written from docs/bindings.md
# alone: Python, shell, and Node.js when node is installed) against aopconform at default settings while the machine is loaded, and
# count false alarms (a correct agent not exiting 0) and missed bugs (a buggy agent
# not exiting 1), and how many FAILURES blocks each buggy run's report shows (one
# root cause, one block; a bug mode that plants several misbehaviours shows more).
#
#   make soak                    # SOAK_N=10 runs of each correct mode, SOAK_BUG_N=2 of each bug
#   SOAK_N=3 SOAK_JOBS=2 sh testdata/agents/soak.sh bin
#
# Load: stress-ng --cpu $SOAK_CPU (default 4) runs in the background for the whole
# soak (Debian package stress-ng); SOAK_CPU=0 runs without it.
runone() {
	p=$1 agent=$2 mode=$3 want=$4 i=$5
	out="$work/$p-$agent-$mode-$i"
	case $agent in
	*.py) cmd="python3 $here/$agent $mode" ;;
	*.mjs) cmd="node $here/$agent $mode" ;;
	*) cmd="$here/$agent $mode" ;;
	esac
	start=$(date +%s)
	code=0
	(cd "$work" && "$bin/aopconform" run --protocol "$p" --out "$out.d" -- $cmd) >"$out.txt" 2>&1 || code=$?
	blocks=$(awk '/^FAILURES/ {f = 1; next} /^[A-Z][A-Z ]+$/ {f = 0} f && /^(FAIL|WARN|FLAKY) / {n++} END {print n + 0}' "$out.txt")
	echo "$p $agent $mode want=$want got=$code secs=$(($(date +%s) - start)) blocks=$blocks" >>"$work/results"
	if [ "$code" != "$want" ]; then
		mkdir -p "${SOAK_KEEP:-/tmp/aopkit-soak-failures}"
		cp "$out.txt" "${SOAK_KEEP:-/tmp/aopkit-soak-failures}/$p-$agent-$mode-$i.txt"
		cp -r "$out.d" "${SOAK_KEEP:-/tmp/aopkit-soak-failures}/$p-$agent-$mode-$i.d" 2>/dev/null || true
	fi
}

set -eu
if [ "${1:-}" = --one ]; then
	shift
	runone "$@"
	exit 0
fi
bin=$(cd "${1:-bin}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
n=${SOAK_N:-10}
bugn=${SOAK_BUG_N:-2}
jobs=${SOAK_JOBS:-3}
cpu=${SOAK_CPU:-4}
work=$(mktemp -d)
stress=
cleanup() {
	[ -n "$stress" ] && kill "$stress" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
if [ "$cpu" -gt 0 ]; then
	command -v stress-ng >/dev/null || { echo "soak: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
	stress-ng --cpu "$cpu" --timeout 0 >/dev/null 2>&1 &
	stress=$!
fi

# runs P AGENT MODE WANT COUNT: COUNT lines "P AGENT MODE WANT run".
runs() {
	i=1; while [ $i -le "$5" ]; do echo "$1 $2 $3 $4 $i"; i=$((i + 1)); done
}

# One line per run: protocol agent mode want run
{
	for p in aop2 orchmsg aos aof aop-output; do
		for m in correct fast slow-start minimal; do
			runs "$p" "$p.py" "$m" 0 "$n"
		done
		for m in $(sed -n 's/^  \(bug-[a-z-]*\) .*/\1/p' "$here/$p.py"); do
			runs "$p" "$p.py" "$m" 1 "$bugn"
		done
	done
	for m in correct fast slow-start minimal; do
		runs aop-output aop-output.sh "$m" 0 "$n"
	done
	# The Node.js agents: modes correct and fast, and the bug modes their header lists.
	if command -v node >/dev/null; then
		for p in aop2 orchmsg; do
			for m in correct fast; do
				runs "$p" "$p.mjs" "$m" 0 "$n"
			done
			for m in $(sed -n 's|^//   \(bug-[a-z-]*\) .*|\1|p' "$here/$p.mjs"); do
				runs "$p" "$p.mjs" "$m" 1 "$bugn"
			done
		done
	else
		echo "soak: node is not installed: the Node.js agents are not run" >&2
	fi
} >"$work/plan"

export work here bin
started=$(date +%s)
# xargs -P runs the plan SOAK_JOBS at a time.
xargs -P "$jobs" -L 1 sh "$0" --one <"$work/plan"
echo "soak: $(wc -l <"$work/plan") runs in $(($(date +%s) - started)) s, SOAK_N=$n SOAK_BUG_N=$bugn, stress-ng --cpu $cpu, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-11s %-14s %-22s %5s %5s %6s %7s\n' protocol agent mode runs ok wrong blocks
awk '{k=$1" "$2" "$3; runs[k]++; w=$4; g=$5; sub("want=","",w); sub("got=","",g); if (w==g) ok[k]++; else bad[k]++; b=$7; sub("blocks=","",b); if (b+0 > max[k]) max[k]=b+0} END {for (k in runs) printf "%s %d %d %d %d\n", k, runs[k], ok[k]+0, bad[k]+0, max[k]+0}' "$work/results" | sort |
	while read -r p a m r o b x; do printf '%-11s %-14s %-22s %5d %5d %6d %7d\n' "$p" "$a" "$m" "$r" "$o" "$b" "$x"; done
fa=$(awk '$4=="want=0" && $5!="got=0"' "$work/results" | wc -l)
mb=$(awk '$4=="want=1" && $5!="got=1"' "$work/results" | wc -l)
echo "false alarms (correct agent, exit != 0): $fa; missed bugs (buggy agent, exit != 1): $mb"
one=$(awk '$4=="want=1" && $7=="blocks=1"' "$work/results" | wc -l)
echo "buggy runs with one FAILURES block: $one of $(grep -c 'want=1' "$work/results") (blocks: the most any run of the mode showed)"
[ "$fa" -eq 0 ] && [ "$mb" -eq 0 ]
