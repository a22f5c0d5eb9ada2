#!/usr/bin/env python3
"""aop2 executor written from docs/bindings.md and the aop2 spec alone.

Usage: aop2.py [MODE]. Modes a correct agent may take:
  correct     heartbeats, ~1.5 s of work, a report with an output artifact
  fast        answers within a few milliseconds of reading the TASK
  slow-start  waits 2 s before its first output (a slow interpreter start)
  minimal     only what the spec requires: no optional events or fields
Buggy modes (each must make aopconform exit 1):
  bug-wrong-model   reports a model it was not dispatched as
  bug-no-heartbeat  works 6 s without any HEARTBEAT
  bug-ignore-term   ignores SIGTERM
  bug-two-responses answers twice
"""
import hashlib, json, os, signal, sys, threading, time

mode = sys.argv[1] if len(sys.argv) > 1 else "correct"

if mode != "bug-ignore-term":
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
else:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

if mode == "slow-start":
    time.sleep(2)

line = sys.stdin.readline()
if not line:
    sys.exit(0)
task = json.loads(line)


def stdin_gone():
    # EOF on stdin: the orchestrator is gone, stop.
    while sys.stdin.readline():
        pass
    if mode != "bug-ignore-term":
        os._exit(0)


threading.Thread(target=stdin_gone, daemon=True).start()

lock = threading.RLock()


def emit(msg):
    with lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


def iso(t=None):
    t = time.time() if t is None else t
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


sid = task["session"]["session_id"]
tid = task["task"]["task_id"]
target = task["target"]
policy = task.get("execution_policy") or {}
hb = policy.get("heartbeat") or {}
interval = hb.get("interval_seconds", 0) if hb.get("enabled") else 0
start = time.time()
work = {"fast": 0.0, "bug-no-heartbeat": 6.0, "bug-ignore-term": 8.0}.get(mode, 1.5)
done = threading.Event()


def beat():
    emit({"aop_version": "2.0.2-C", "message_type": "EVENT", "event": "HEARTBEAT", "session_id": sid,
          "task_id": tid, "timestamp": iso(), "agent": "py-executor",
          "progress_percentage": min(99, int(100 * (time.time() - start) / max(work, 0.1)))})


def heartbeats():
    # At least every interval_seconds from the start: beat at half the interval.
    while not done.wait(interval / 2.0):
        beat()


if interval and mode != "bug-no-heartbeat":
    beat()
    threading.Thread(target=heartbeats, daemon=True).start()

ws = task["task"].get("environment", {}).get("workspace_root") or os.environ.get("AOP2_WORKSPACE", ".")
time.sleep(work)
artifacts = []
if mode not in ("minimal", "fast"):
    path = os.path.join(ws, "py-result.txt")
    data = ("result of %s\n" % tid).encode()
    with open(path, "wb") as f:
        f.write(data)
    artifacts.append({"type": "FILE", "path": path, "hash": "sha256:" + hashlib.sha256(data).hexdigest(),
                      "status": "CREATED", "size_bytes": len(data)})
done.set()
attempt = task["task"].get("attempt", 1)
model = target.get("model")
if mode == "bug-wrong-model":
    model = "some-other-model"
resp = {"aop_version": "2.0.2-C", "schema_version": "2.0.2", "protocol_family": "AOP", "message_type": "RESPONSE",
        "session_id": sid, "task_id": tid,
        "agent": {"name": "py-executor", "provider": target.get("provider"), "model": model},
        "task_status": {"state": "COMPLETED", "final_signal": "SUCCESS", "message": "Done."},
        "execution_summary": {"summary": "Looked at the task and wrote a result file.", "actions": ["Read the TASK."]}}
if mode != "minimal":
    resp["execution_summary"].update({"output_artifacts": artifacts, "warnings": [], "errors": []})
    resp["timing"] = {"started_at": iso(start), "completed_at": iso(), "duration_seconds": int(time.time() - start),
                      "retries_attempted": attempt - 1}
    resp["cost_tracking"] = {"estimated_cost_usd": 0.01, "actual_cost_usd": 0.01, "tokens_input": 100,
                             "tokens_output": 10, "model_pricing_tier": "standard"}
with lock:
    emit(resp)
    if mode == "bug-two-responses":
        emit(resp)
sys.exit(0)
