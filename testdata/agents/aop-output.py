#!/usr/bin/env python3
"""aop-output agent written from docs/bindings.md and the AOP 1.0.0 spec alone.

Usage: aop-output.py [MODE]. Correct modes:
  correct     ~1 s of work, a report with METRICS and a JSON details file
  fast        the report at once, DETAILS_FILE none
  slow-start  waits 2 s before its first output
  minimal     no optional marker (no METRICS), DETAILS_FILE none
Buggy modes (aopconform must exit 1):
  bug-long-summary  a summary far over the task type's limit
  bug-no-end        stops before [AOP:END]
  bug-stdout-log    prints a log line on stdout before the report
"""
import json, os, signal, sys, time

mode = sys.argv[1] if len(sys.argv) > 1 else "correct"
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
if mode == "slow-start":
    time.sleep(2)
task = json.loads(sys.stdin.readline() or "{}")
text = task.get("task", "a task")
short = text if len(text) <= 50 else text[:47] + "..."


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def out(line=""):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


start = now()
if mode == "bug-stdout-log":
    out("INFO: reading the workspace")  # a log line on stdout, outside the report
out("[AOP:START] " + start)
out("[AOP:TASK] " + short)
if mode not in ("fast", "minimal"):
    time.sleep(1)
details = "none"
if mode not in ("fast", "minimal"):
    os.makedirs("outputs", exist_ok=True)
    details = "outputs/details.json"
    with open(details, "w") as f:
        json.dump({"aop_version": "1.0.0", "agent_id": "py-agent", "task": text, "timestamp": start,
                   "results": {"items": 1}}, f)
out()
out("[AOP:SUMMARY]")
if mode == "bug-long-summary":
    out("- " + "x" * 900)
else:
    out("- Task looked at")
    out("- Nothing unusual found")
out()
out("[AOP:DETAILS_FILE] " + details)
if mode not in ("minimal", "fast"):
    out("[AOP:METRICS] items: 1")
out("[AOP:STATUS] success")
if mode != "bug-no-end":
    out("[AOP:END] " + now())
sys.exit(0)
