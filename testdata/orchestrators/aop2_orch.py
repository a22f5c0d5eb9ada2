#!/usr/bin/env python3
"""A small aop2 orchestrator, written from docs/bindings.md ("Orchestrators") alone.

It reads the TASK envelope from $AOPKIT_TASK, runs the executor $AOPKIT_AGENT once
per dispatch (the TASK as one JSON line on its stdin, EVENT and RESPONSE lines back
on its stdout), and enforces the task's policy:
  - the effective timeout (guard_rails.timeout_seconds over
    execution_policy.timeout_seconds, §11): SIGTERM to the executor's group,
    SIGKILL 2 s later (E_TIMEOUT);
  - heartbeats (execution_policy.heartbeat, §6.1): interval_seconds x
    max_missed_beats without a HEARTBEAT is E_HEARTBEAT_FAILURE; ABORT stops it;
  - fallback (§9): after a failed attempt, the first alternative_models entry
    whose fallback_trigger matches the error gets the task;
  - rollback (§7): expected outputs with rollback_snapshot.enabled are copied to
    their snapshot_path before the first dispatch and restored when the task fails
    (then ROLLBACK_INITIATED);
  - v1 fallback (§1.3): a TASK that fails the v2 schema gets VERSION_FALLBACK and
    goes to the executor as a v1 markdown prompt (stdin, then EOF), whose
    "STATUS: ..." line is the outcome; JSON without aop_version is UNSTRUCTURED
    (E_PARSE_FAILURE) and dispatched to no one;
  - payload limits (§4): over a HARD limit the TASK is rejected (E_CONTEXT_OVERFLOW),
    over a SOFT one dispatched with E_PAYLOAD_SIZE_WARNING;
  - retries (§2.2): a failed attempt is retried on the same model max_retries
    times, each after retry_backoff_seconds; ALL_ERRORS alternatives take over
    only then.
Its EVENTs (VERSION_FALLBACK, ROLLBACK_INITIATED, SESSION_FINAL_REPORT with the
session's error codes) go to stdout, its logs to stderr; it exits 0 once the task
is decided.

Usage: aop2_orch.py [MODE]. MODE "correct" (default) or one bug, to show that
aopconform run --side orchestrator catches it:
  no-timeout-kill        never terminates an executor past its timeout
  execution-policy-timeout  ignores guard_rails (§11 precedence)
  ignore-heartbeats      never acts on missed heartbeats
  wrong-fallback-model   falls back to the first alternative, whatever its trigger
  close-stdin-early      closes the executor's stdin right after the TASK
  task-status-in-task    dispatches a TASK that carries task_status (§1.2)
  skip-rollback          takes the snapshots but never restores them
  no-version-fallback    gives up on a TASK that fails the v2 schema: no event, no v1 prompt
  no-rollback-event      restores the snapshots silently
  omit-error-codes       reports no error codes in its SESSION_FINAL_REPORT
  daemon                 correct, but stays up once the task is decided (not a bug)
  v1-stdin-open          writes the v1 prompt but never closes the executor's stdin,
                         and waits for it forever (only the harness's clean-up ends it)
"""
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
CRITICAL = {"E_PROCESS_CRASH", "E_HEARTBEAT_FAILURE", "E_AGENT_NOT_FOUND", "E_MODEL_UNAVAILABLE",
            "E_PERMISSION_DENIED", "E_CONTEXT_OVERFLOW", "E_ROLLBACK_FAILED"}


def log(*args):
    print("aop2_orch:", *args, file=sys.stderr, flush=True)


def emit(task, event, **fields):
    """Write one EVENT on stdout (bindings: "Events you emit")."""
    msg = {"aop_version": "2.0.2-C", "message_type": "EVENT", "event": event,
           "session_id": (task.get("session") or {}).get("session_id") or "AOP-SESSION-UNKNOWN",
           "task_id": (task.get("task") or {}).get("task_id") or "UNKNOWN",
           "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    msg.update(fields)
    print(json.dumps(msg, separators=(",", ":")), flush=True)


def schema_problem(task):
    """The v2 validation of §1.2/§1.3 an orchestrator can do without the schema."""
    if not str(task.get("aop_version", "")).startswith("2."):
        return "aop_version is not 2.x"
    for key in ("session", "target", "task"):
        if not isinstance(task.get(key), dict):
            return "a TASK must contain " + key
    if "task_status" in task:
        return "a TASK must not contain task_status"
    return None


def payload_limits(task):
    """The HARD and SOFT overflows of §4 (the TASK's own limits)."""
    t = task.get("task") or {}
    hard, soft = [], []
    if len(json.dumps(task, separators=(",", ":")).encode()) > 200 * 1024:
        hard.append("TASK envelope over 200KB")
    if len(t.get("inputs") or []) > 100:
        hard.append("more than 100 inputs")
    if len(t.get("expected_outputs") or []) > 50:
        hard.append("more than 50 expected outputs")
    if len(str(t.get("objective", ""))) > 40000:
        soft.append("objective over 40k characters")
    phases = task.get("phases") or []
    if len(phases) > 10:
        soft.append("more than 10 phases")
    if any(len(p.get("checkpoints") or []) > 20 for p in phases if isinstance(p, dict)):
        soft.append("more than 20 checkpoints in a phase")
    return hard, soft


def v1_prompt(task):
    t = task.get("task") or {}
    target = task.get("target") or {}
    parts = ["# AOP TASK %s" % t.get("task_id", "UNKNOWN"), "",
             "- Target: %s (%s / %s)" % (target.get("agent_name"), target.get("provider"), target.get("model")), "",
             "## Objective", "", str(t.get("objective", "")), ""]
    if t.get("extensions"):
        parts += ["## Extensions", "", "```json", json.dumps(t["extensions"]), "```", ""]
    parts += ["## Report", "", "Answer in markdown. End with one status line: STATUS: SUCCESS, STATUS: FAILURE."]
    return "\n".join(parts) + "\n"


def policy(task):
    ep = task.get("execution_policy") or {}
    gr = task.get("guard_rails") or {}
    timeout = gr.get("timeout_seconds", ep.get("timeout_seconds"))
    if MODE == "execution-policy-timeout":
        timeout = ep.get("timeout_seconds")
    auto = gr.get("auto_terminate_on_timeout", ep.get("auto_terminate_on_timeout", True))
    hb = ep.get("heartbeat") or {}
    return timeout, auto, hb, ep.get("alternative_models") or []


def stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def attempt(task):
    """Dispatch once; return None on success, else the §12 error code."""
    timeout, auto, hb, _ = policy(task)
    env = dict(os.environ, AOP_PROTOCOL="aop2")
    ws = ((task.get("task") or {}).get("environment") or {}).get("workspace_root")
    if ws:
        env["AOP2_WORKSPACE"] = ws
    proc = subprocess.Popen([os.environ["AOPKIT_AGENT"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            start_new_session=True, env=env)
    if MODE == "task-status-in-task":
        task = dict(task, task_status={"state": "PENDING"})
    proc.stdin.write((json.dumps(task, separators=(",", ":")) + "\n").encode())
    proc.stdin.flush()
    if MODE == "close-stdin-early":
        proc.stdin.close()
    lines = queue.Queue()

    def read():
        for raw in proc.stdout:
            lines.put(raw)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    start = last_beat = time.monotonic()
    response = None
    watch_beats = bool(hb.get("enabled")) and MODE != "ignore-heartbeats"
    beat_limit = float(hb.get("interval_seconds", 120)) * int(hb.get("max_missed_beats", 3))
    while True:
        try:
            raw = lines.get(timeout=0.05)
        except queue.Empty:
            raw = ""
        now = time.monotonic()
        if raw is None:
            break
        if raw:
            try:
                msg = json.loads(raw)
            except ValueError:
                msg = {}
            if msg.get("message_type") == "RESPONSE" and response is None:
                response = msg
            elif msg.get("message_type") == "EVENT" and msg.get("event") == "HEARTBEAT":
                last_beat = now
        if response is not None:
            continue
        if timeout and auto and MODE != "no-timeout-kill" and now - start >= float(timeout):
            log("E_TIMEOUT after", timeout, "s: terminating the executor")
            stop(proc)
            return "E_TIMEOUT"
        if watch_beats and now - last_beat >= beat_limit:
            action = str(hb.get("on_heartbeat_failure", "ABORT")).upper()
            log("E_HEARTBEAT_FAILURE:", action)
            if action == "ABORT":
                stop(proc)
                return "E_HEARTBEAT_FAILURE"
            watch_beats = action == "WARN"
            last_beat = now
    code = proc.wait()
    if response is None:
        return "E_PROCESS_CRASH" if code != 0 else "E_MALFORMED_RESPONSE"
    if (response.get("task_status") or {}).get("final_signal") not in ("SUCCESS", "PARTIAL_SUCCESS"):
        return "E_UNKNOWN"
    return None


def attempt_v1(task):
    """Dispatch the v1 prompt (stdin, then EOF); None on STATUS: SUCCESS, else the code."""
    timeout, auto, _, _ = policy(task)
    env = dict(os.environ, AOP_PROTOCOL="aop2")
    proc = subprocess.Popen([os.environ["AOPKIT_AGENT"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            start_new_session=True, env=env)
    proc.stdin.write(v1_prompt(task).encode())
    if MODE == "v1-stdin-open":
        proc.stdin.flush()
        proc.wait()
        return "E_UNKNOWN"
    proc.stdin.close()
    status = []

    def read():
        for raw in proc.stdout:
            line = raw.decode(errors="replace").strip().replace("*", "")
            if line.upper().startswith("STATUS:") and not status:
                status.append(line.split(":", 1)[1].strip().upper())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=float(timeout) if timeout and auto else None)
    except subprocess.TimeoutExpired:
        log("E_TIMEOUT after", timeout, "s: terminating the v1 executor")
        stop(proc)
        return "E_TIMEOUT"
    reader.join()
    if not status:
        return "E_PROCESS_CRASH" if proc.returncode != 0 else "E_MALFORMED_RESPONSE"
    return None if status[0] in ("SUCCESS", "PARTIAL_SUCCESS") else "E_UNKNOWN"


def matches(trigger, code):
    trigger = str(trigger).upper()
    return (trigger in ("FIRST_ERROR", "ALL_ERRORS") or (trigger == "TIMEOUT" and code == "E_TIMEOUT")
            or (trigger == "CRITICAL_ERROR" and code in CRITICAL)
            or (trigger == "COST_LIMIT_EXCEEDED" and code == "E_COST_LIMIT_EXCEEDED"))


def snapshots(task):
    """Copy each enabled expected output aside (§7); return (path, snapshot, existed)."""
    out = []
    for o in (task.get("task") or {}).get("expected_outputs") or []:
        rs = o.get("rollback_snapshot") or {}
        if not rs.get("enabled") or not o.get("path"):
            continue
        snap = rs.get("snapshot_path") or o["path"] + ".before"
        os.makedirs(os.path.dirname(snap) or ".", exist_ok=True)
        existed = os.path.exists(o["path"])
        if existed:
            shutil.copyfile(o["path"], snap)
        else:
            open(snap, "w").close()
        out.append((o["path"], snap, existed))
    return out


def rollback(task, snaps, errors):
    if MODE == "skip-rollback" or not snaps:
        return
    arts = []
    for path, snap, existed in snaps:
        status = "SUCCESS"
        try:
            if not os.path.exists(snap):
                raise OSError("the snapshot %s is gone" % snap)
            if existed:
                shutil.copyfile(snap, path)
            elif os.path.exists(path):
                os.remove(path)
            log("rollback: restored", path)
        except OSError as e:
            status = "FAILED"
            errors.append("E_ROLLBACK_FAILED")
            log("rollback of", path, "failed:", e)
        arts.append({"path": path, "restored_from": snap, "status": status})
    if MODE != "no-rollback-event":
        emit(task, "ROLLBACK_INITIATED", trigger="TASK_FAILED", artifacts_rolled_back=arts)


def final_report(task, status, signal, errors):
    emit(task, "SESSION_FINAL_REPORT", status=status, final_signal=signal,
         errors=[] if MODE == "omit-error-codes" else errors)


def main():
    with open(os.environ["AOPKIT_TASK"]) as f:
        task = json.load(f)
    errors = []
    if "aop_version" not in task:
        # §1.3 step 3: no aop_version, and JSON is no v1 markdown: UNSTRUCTURED.
        log("no aop_version: UNSTRUCTURED, not dispatched")
        final_report(task, "REJECTED", "FAILURE", ["E_PARSE_FAILURE"])
        return 0
    problem = schema_problem(task)
    if problem:
        errors.append("E_SCHEMA_VALIDATION")
        if MODE == "no-version-fallback":
            log("the TASK fails the v2 schema:", problem, "- rejected")
            final_report(task, "REJECTED", "FAILURE", errors)
            return 0
        emit(task, "VERSION_FALLBACK", from_version=str(task.get("aop_version", "")), to_version="1.x",
             reason=problem, error_code="E_SCHEMA_VALIDATION")
        code = attempt_v1(task)
        if code is None:
            final_report(task, "COMPLETED", "SUCCESS", errors)
        else:
            errors.append(code)
            final_report(task, "FAILED", "FAILURE", errors)
        return 0
    hard, soft = payload_limits(task)
    if hard:
        log("HARD payload limit:", ", ".join(hard), "- rejected")
        final_report(task, "REJECTED", "FAILURE", ["E_CONTEXT_OVERFLOW"])
        return 0
    errors += ["E_PAYLOAD_SIZE_WARNING"] if soft else []
    _, _, _, alternatives = policy(task)
    ep = task.get("execution_policy") or {}
    max_retries = int(ep.get("max_retries", 0))
    backoff = ep.get("retry_backoff_seconds") or [0]
    remaining = list(alternatives)
    snaps = snapshots(task)
    tries = 0
    while True:
        code = attempt(task)
        if code is None:
            log("task completed")
            final_report(task, "COMPLETED", "SUCCESS", errors)
            return 0
        errors.append(code)
        log("attempt", task.get("task", {}).get("attempt", 1), "failed:", code)
        tries += 1
        pick = None
        for alt in remaining[:1]:
            # FIRST_ERROR, TIMEOUT, ...: the next alternative takes over at once.
            if MODE == "wrong-fallback-model" or (alt.get("fallback_trigger") != "ALL_ERRORS" and matches(alt.get("fallback_trigger"), code)):
                pick = alt
        if pick is None and tries <= max_retries:
            wait = float(backoff[min(tries - 1, len(backoff) - 1)])
            log("retry", tries, "of", max_retries, "in", wait, "s")
            time.sleep(wait)
            task = json.loads(json.dumps(task))
            task["task"]["attempt"] = int(task["task"].get("attempt", 1)) + 1
            continue
        tries = 0
        for alt in remaining if pick is None else []:
            if matches(alt.get("fallback_trigger"), code):
                pick = alt
                break
        if pick is None:
            if alternatives:
                errors.append("E_ALL_MODELS_EXHAUSTED")
            log("no alternative left:", errors[-1])
            rollback(task, snaps, errors)
            final_report(task, "FAILED", "FAILURE", errors)
            return 0
        remaining = remaining[remaining.index(pick) + 1:]
        task = json.loads(json.dumps(task))
        task["target"]["provider"], task["target"]["model"] = pick["provider"], pick["model"]
        task["task"]["attempt"] = int(task["task"].get("attempt", 1)) + 1
        log("fallback to", pick["provider"], pick["model"])


if __name__ == "__main__":
    code = main()
    if MODE == "daemon":
        # A host that stays up once the task is decided: the harness stops it.
        log("task decided: staying up")
        sys.stdout.flush()
        while True:
            time.sleep(3600)
    sys.exit(code)
