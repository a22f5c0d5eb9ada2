#!/bin/sh
# aop-output agent in POSIX shell, written from docs/bindings.md alone.
# Usage: aop-output.sh [correct|fast|slow-start|minimal]
mode=${1:-correct}
trap 'exit 0' TERM
[ "$mode" = slow-start ] && sleep 2
read -r task
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "[AOP:START] $start"
echo "[AOP:TASK] Inspect the workspace"
details=none
if [ "$mode" = correct ] || [ "$mode" = slow-start ]; then
	sleep 1
	mkdir -p outputs
	printf '{"aop_version":"1.0.0","agent_id":"sh-agent","task":"inspect","timestamp":"%s","results":{"files":0}}\n' "$start" >outputs/details.json
	details=outputs/details.json
fi
echo
echo "[AOP:SUMMARY]"
echo "- Workspace inspected"
echo "- Nothing to report"
echo
echo "[AOP:DETAILS_FILE] $details"
[ "$mode" = minimal ] || [ "$mode" = fast ] || echo "[AOP:METRICS] files: 0"
echo "[AOP:STATUS] success"
echo "[AOP:END] $(date -u +%Y-%m-%dT%H:%M:%SZ)"
