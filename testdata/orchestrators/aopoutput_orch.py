#!/usr/bin/env python3
"""A small aop-output parent, written from docs/bindings.md ("Orchestrators") alone.

It reads the task from $AOPKIT_TASK ({"input": {"task", "task_type"}, "workspace"}),
runs the agent $AOPKIT_AGENT in the workspace (AOPKIT_SCRATCH set to it) with the
input as one line on its stdin, reads its AOP report (an agent still running 2 s after [AOP:END]
gets SIGTERM, then SIGKILL 2 s later), and prints what it took as one JSON line:
{"report", "status", "summary", "details_file", "details"}. Logs go to stderr.

Usage: aopoutput_orch.py [MODE]. MODE "correct" (default) or one bug:
  summary-first-line   keeps only the first line of the summary
  cut-at-600           cuts every summary at 600 characters, whatever the task type
  follow-details-path  reads the details file wherever its path leads
  success-on-exit-0    takes an agent's exit 0 as success when its status is not usable
  wait-for-exit        waits for the agent's exit after [AOP:END], however long
"""
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
GRACE = 2.0
LIMITS = {"search": 500, "explore": 500, "analysis": 600, "code": 300, "code-changes": 300,
          "test": 400, "tests": 400, "test-results": 400, "build": 200, "build-output": 200,
          "documentation": 500, "docs": 500}
REQUIRED = ["START", "TASK", "SUMMARY", "DETAILS_FILE", "STATUS", "END"]
MARKER = re.compile(r"^[ \t]*\[AOP:([A-Z_]+)\]")


def log(*args):
    print("aopoutput_orch:", *args, file=sys.stderr, flush=True)


def stop(agent):
    for sig, wait in ((signal.SIGTERM, GRACE), (signal.SIGKILL, None)):
        try:
            os.killpg(agent.pid, sig)
        except ProcessLookupError:
            return
        log("sent", sig.name)
        if wait is None:
            return
        try:
            agent.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


def run_agent(task_line, workspace):
    agent = subprocess.Popen([os.environ["AOPKIT_AGENT"]], cwd=workspace, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, start_new_session=True,
                             env=dict(os.environ, AOPKIT_SCRATCH=workspace, AOP_PROTOCOL="aop-output"))
    try:
        agent.stdin.write(task_line.encode() + b"\n")
        agent.stdin.close()
    except BrokenPipeError:
        pass
    lines = queue.Queue()

    def read():
        for raw in agent.stdout:
            lines.put(raw.decode("utf-8", "replace").rstrip("\n").rstrip("\r"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    out, ended_at = [], None
    while True:
        timeout = None
        if ended_at is not None and MODE != "wait-for-exit":
            timeout = max(0.0, ended_at + GRACE - time.monotonic())
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            if agent.poll() is None:
                log("the agent did not exit after [AOP:END]: stopping it")
                stop(agent)
            ended_at = None  # drain what is left
            continue
        if line is None:
            break
        out.append(line)
        m = MARKER.match(line)
        if m and m.group(1) == "END" and ended_at is None:
            ended_at = time.monotonic()
    code = agent.wait()
    log("agent exited", code)
    return out, code


def inside(workspace, named):
    root = os.path.realpath(workspace)
    path = os.path.realpath(os.path.join(root, named))
    return path if os.path.commonpath([root, path]) == root else None


def take(out, code, task_type, workspace):
    markers = {}
    for i, line in enumerate(out):
        m = MARKER.match(line)
        if m and m.group(1) not in markers:
            markers[m.group(1)] = (i, line[m.end():].strip())
    if not markers:
        report = "missing"
    elif all(n in markers for n in REQUIRED):
        report = "complete"
    else:
        report = "incomplete"
    status = "unknown"
    if "STATUS" in markers and report == "complete" and markers["STATUS"][1] in ("success", "failure", "partial"):
        status = markers["STATUS"][1]
    if status == "unknown" and code == 0 and MODE == "success-on-exit-0":
        status = "success"
    summary = None
    if "SUMMARY" in markers:
        i, value = markers["SUMMARY"]
        parts = [value]
        for line in out[i + 1:]:
            if MARKER.match(line):
                break
            parts.append(line)
        summary = "\n".join(parts).strip()
        if MODE == "summary-first-line":
            summary = summary.split("\n")[0]
        limit = 600 if MODE == "cut-at-600" else LIMITS.get(task_type.strip().lower(), 500)
        summary = summary[:limit]
    details_file = markers["DETAILS_FILE"][1] if "DETAILS_FILE" in markers else None
    details = None
    if details_file not in (None, "none"):
        path = inside(workspace, details_file)
        if MODE == "follow-details-path":
            path = os.path.join(workspace, details_file)
        if path is not None and os.path.isfile(path):
            with open(path, "rb") as f:
                text = f.read(1 << 20).decode("utf-8", "replace")
            try:
                details = json.loads(text)
            except ValueError:
                details = text
        elif path is None:
            log("details file", details_file, "is outside the workspace: not read")
    return {"report": report, "status": status, "summary": summary, "details_file": details_file, "details": details}


def main():
    with open(os.environ["AOPKIT_TASK"]) as f:
        task = json.load(f)
    workspace = task["workspace"]
    out, code = run_agent(json.dumps(task["input"], separators=(",", ":")), workspace)
    taken = take(out, code, task["input"].get("task_type", ""), workspace)
    print(json.dumps(taken), flush=True)
    log("took", taken["report"], taken["status"])


if __name__ == "__main__":
    main()
