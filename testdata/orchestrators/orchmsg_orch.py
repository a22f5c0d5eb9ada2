#!/usr/bin/env python3
"""A small orchmsg orchestrator (host), written from docs/bindings.md ("Orchestrators") alone.

It reads the task from $AOPKIT_TASK ({"taskId", "message", "task": what get-task
returns, "orchestrator": its world: other agents' tasks and agents, its user,
the task's timeout}), runs the agent $AOPKIT_AGENT, sends it notify:task-assigned, answers
every request:* with response:success or response:error carrying the request's id
as correlationId (past 100 messages per second a message is not handled: a request
gets response:error), and once the agent reports the task done (event:progress with
progress 1, or event:error) sends notify:shutdown with a 2 s gracePeriod; an agent
still running after it gets SIGTERM, then SIGKILL 2 s later. A task still running
task_timeout ms after its assignment is cancelled (notify:task-cancelled), then the
agent shut down. get-task for another agent's task is UNAUTHORIZED, for an unknown
one NOT_FOUND; queries are filtered; a question the silent user leaves unanswered
gets TIMEOUT at its own timeout, else after 30 s. Logs go to stderr.

Usage: orchmsg_orch.py [MODE]. MODE "correct" (default) or one bug:
  wrong-correlation-id   answers with a fresh id as correlationId
  no-shutdown-grace      sends SIGTERM together with notify:shutdown
  no-assignment          never sends notify:task-assigned (answers requests only)
  daemon                 correct, but starts slowly (4.5 s busy in the rate-flood scenario),
                         logs JSON to stdout (as forge's pino) and stays up once the task
                         is decided (not a bug)
  ask-user-unsupported   answers request:ask-user with INVALID_MESSAGE_TYPE (as forge does)
  internal-error-codes   answers a get-task it cannot serve with INTERNAL_ERROR (as forge does)
  ignore-status          answers query-agents ignoring its status filter (as forge does)
  no-cancel              never cancels a task past its timeout (as forge)
  drop-flood             leaves a request past the rate limit unanswered
  exit-without-stop      sends notify:shutdown, waits out the grace period and exits,
                         never stopping an agent that lingers (the harness's clean-up does)
"""
import collections
import datetime
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
GRACE = 2.0


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def log(*args):
    if MODE == "daemon":
        # Like forge (pino): JSON logs on stdout, which orchmsg leaves free.
        print(json.dumps({"level": 30, "time": int(time.time() * 1000), "msg": " ".join(str(a) for a in args)}), flush=True)
        return
    print("orchmsg_orch:", *args, file=sys.stderr, flush=True)


def main():
    if MODE == "daemon" and "rate-flood" in os.environ.get("AOPKIT_SCENARIO", ""):
        # A slow start-up (tsx compiling forge took ~3 s): busy, not asleep,
        # for longer than the scenario's deadline of 4 s.
        end = time.monotonic() + 4.5
        while time.monotonic() < end:
            pass
    with open(os.environ["AOPKIT_TASK"]) as f:
        spec = json.load(f)
    task = spec.pop("task", None) or {"id": spec["taskId"], "status": "running"}
    world = spec.pop("orchestrator", None) or {}
    others = {t["id"]: t for t in world.get("tasks") or []}  # other agents' tasks
    agents = [{"id": "worker-1", "role": "worker", "status": "busy", "capabilities": [], "currentTask": spec["taskId"]}] + list(world.get("agents") or [])
    silent_user = bool((world.get("user") or {}).get("silent"))
    task_timeout = (world.get("task_timeout") or 0) / 1000.0
    # A host's own arguments, as forge passes them: the agent command accepts any.
    agent = subprocess.Popen([os.environ["AOPKIT_AGENT"], "--print", "--output-format=json", "Work on the assigned task"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             start_new_session=True, env=dict(os.environ, AOP_PROTOCOL="orchmsg", ORCHMSG_AGENT_ID="worker-1"))
    lock = threading.Lock()

    def send(msg):
        msg.setdefault("id", "%s-%s" % (msg["type"].split(":")[0][:3], uuid.uuid4()))
        msg.setdefault("timestamp", now())
        with lock:
            try:
                agent.stdin.write((json.dumps(msg) + "\n").encode())
                agent.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def stop():
        try:
            os.killpg(agent.pid, signal.SIGTERM)
            agent.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            os.killpg(agent.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def shutdown():
        send({"type": "notify:shutdown", "payload": {"gracePeriod": int(GRACE * 1000), "reason": "task done"}})
        if MODE == "no-shutdown-grace":
            stop()
            return
        if MODE == "exit-without-stop":
            time.sleep(GRACE)
            log("grace period over: exiting, the agent left running")
            os._exit(0)
        deadline = time.monotonic() + GRACE
        while agent.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if agent.poll() is None:
            log("the agent outlived the grace period: stopping it")
            stop()

    done = threading.Event()  # the task is over (done, failed or cancelled)
    if MODE != "no-assignment":
        send({"type": "notify:task-assigned", "payload": dict(spec)})

    def cancel_at_timeout():
        if done.wait(task_timeout) or MODE == "no-cancel":
            return
        done.set()
        task["status"] = "cancelled"
        send({"type": "notify:task-cancelled", "payload": {"taskId": spec["taskId"], "reason": "Task timed out"}})
        time.sleep(GRACE)
        shutdown()

    if task_timeout > 0 and MODE != "no-assignment":  # nothing assigned, nothing to cancel
        threading.Thread(target=cancel_at_timeout, daemon=True).start()

    def time_out(corr, secs):
        time.sleep(secs)
        send({"type": "response:error", "correlationId": corr, "error": {"code": "TIMEOUT", "message": "Request timed out"}})

    def matches(item, filters, fields):
        for f in fields:
            if f not in filters:
                continue
            want, have = filters[f], item.get(f)
            if isinstance(want, list):
                if not all(w in (have or []) for w in want):
                    return False
            elif have != want:
                return False
        return True
    submitted = []
    window = collections.deque(maxlen=100)  # times of the agent's last 100 messages
    for raw in agent.stdout:
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            continue
        typ = msg["type"]
        payload = msg.get("payload") or {}
        t = time.monotonic()
        flooded = len(window) == 100 and t - window[0] < 1.0
        window.append(t)
        if flooded:
            if typ.startswith("request:") and MODE != "drop-flood":
                send({"type": "response:error", "correlationId": msg.get("id"),
                      "error": {"code": "INTERNAL_ERROR", "message": "Rate limit exceeded: at most 100 messages per second"}})
            continue
        if typ.startswith("request:"):
            corr = msg.get("id")
            if MODE == "wrong-correlation-id":
                corr = "req-%s" % uuid.uuid4()
            resp = {"type": "response:success", "correlationId": corr}
            if typ == "request:get-task":
                if payload.get("taskId") == task.get("id") or payload.get("taskId") in submitted:
                    resp["payload"] = {"task": task if payload.get("taskId") == task.get("id") else {"id": payload["taskId"], "status": "queued"}}
                elif MODE == "internal-error-codes":
                    resp = {"type": "response:error", "correlationId": corr, "error": {"code": "INTERNAL_ERROR", "message": "Task not found"}}
                elif not isinstance(payload.get("taskId"), str):
                    resp = {"type": "response:error", "correlationId": corr, "error": {"code": "INVALID_REQUEST", "message": "payload.taskId is required"}}
                elif payload["taskId"] in others:
                    resp = {"type": "response:error", "correlationId": corr, "error": {"code": "UNAUTHORIZED", "message": "Agents can only query their own tasks"}}
                else:
                    resp = {"type": "response:error", "correlationId": corr, "error": {"code": "NOT_FOUND", "message": "Task %s not found" % payload["taskId"]}}
            elif typ == "request:query-agents":
                fields = ["role", "capabilities"] if MODE == "ignore-status" else ["role", "status", "capabilities"]
                resp["payload"] = {"agents": [a for a in agents if matches(a, payload, fields)]}
            elif typ == "request:query-tasks":
                own = [task] + [{"id": t, "status": "queued", "dependencies": []} for t in submitted]
                found = [t for t in own if matches(t, payload, ["status", "requiredRole"])]
                if isinstance(payload.get("limit"), int):
                    found = found[:payload["limit"]]
                resp["payload"] = {"tasks": found}
            elif typ == "request:submit-task":
                tid = "task-%d" % (len(submitted) + 200)
                submitted.append(tid)
                resp["payload"] = {"task": {"id": tid, "status": "queued"}}
            elif typ == "request:ask-user" and MODE == "ask-user-unsupported":
                resp = {"type": "response:error", "correlationId": corr,
                        "error": {"code": "INVALID_MESSAGE_TYPE", "message": "No handler for message type: " + typ}}
            elif typ == "request:ask-user" and silent_user:
                # Nobody answers: TIMEOUT once the question's own timeout, else 30 s, has passed.
                secs = payload["timeout"] / 1000.0 if isinstance(payload.get("timeout"), (int, float)) and payload["timeout"] > 0 else 30.0
                threading.Thread(target=time_out, args=(corr, secs), daemon=True).start()
                continue
            elif typ == "request:ask-user":
                opts = [o.get("value") for o in payload.get("options") or [] if isinstance(o, dict)]
                resp["payload"] = {"answer": opts[0] if opts else "yes"}
            else:
                resp = {"type": "response:error", "correlationId": corr, "error": {"code": "INVALID_MESSAGE_TYPE", "message": "unknown request " + typ}}
            send(resp)
        elif (typ == "event:progress" and payload.get("progress", 0) >= 1) or (typ == "event:error" and payload.get("recoverable") is not True):
            if payload.get("taskId") == spec["taskId"] and not done.is_set():
                done.set()
                log("task done:", typ)
                threading.Thread(target=shutdown, daemon=True).start()
    agent.wait()
    time.sleep(0.1)
    if MODE == "daemon":
        # A host that stays up once the task is decided: the harness stops it.
        log("task decided: staying up")
        while True:
            time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
