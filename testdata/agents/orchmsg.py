#!/usr/bin/env python3
"""orchmsg agent written from docs/bindings.md and the orchmsg spec alone.

Usage: orchmsg.py [MODE]. Correct modes:
  correct     get-task, query-agents, progress, ~1 s of work, progress 1, idle until shutdown
  fast        reports the task done at once, no request
  slow-start  waits 2 s before its first output
  minimal     no optional request at all: progress 1, then idle
Buggy modes (aopconform must exit 1):
  bug-reuse-id      sends two messages with the same id
  bug-ignore-cancel keeps reporting progress after notify:task-cancelled
  bug-no-exit       ignores notify:shutdown
"""
import json, os, queue, signal, sys, threading, time, uuid

mode = sys.argv[1] if len(sys.argv) > 1 else "correct"
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
agent_id = os.environ.get("ORCHMSG_AGENT_ID", "agent-under-test")
lock = threading.RLock()
inbox = queue.Queue()
pending = {}  # request id -> type
cancelled = threading.Event()
fixed_id = str(uuid.uuid4())


def iso():
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


def send(typ, payload):
    mid = fixed_id if mode == "bug-reuse-id" else str(uuid.uuid4())
    msg = {"type": typ, "id": mid, "timestamp": iso(), "agentId": agent_id, "payload": payload}
    if typ.startswith("request:"):
        pending[mid] = typ
    with lock:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()
    return mid


def reader():
    # Keep reading whatever happens: notifications are obeyed even while a
    # request is unanswered.
    for line in sys.stdin:
        try:
            m = json.loads(line)
        except ValueError:
            continue
        t = m.get("type", "")
        if t == "notify:shutdown":
            if mode == "bug-no-exit":
                continue
            os._exit(0)
        if t == "notify:task-cancelled":
            cancelled.set()
        if t.startswith("response:"):
            pending.pop(m.get("correlationId"), None)
        inbox.put(m)
    os._exit(0)  # EOF: the orchestrator is gone


if mode == "slow-start":
    time.sleep(2)
threading.Thread(target=reader, daemon=True).start()
first = inbox.get()
while first.get("type") != "notify:task-assigned":
    first = inbox.get()
task_id = first["payload"]["taskId"]

if mode in ("correct", "slow-start", "bug-reuse-id", "bug-ignore-cancel"):
    send("request:get-task", {"taskId": task_id})
    send("request:query-agents", {})  # may never be answered: never wait for it
if mode != "fast":
    steps = 4
    for i in range(1, steps):
        if cancelled.is_set() and mode != "bug-ignore-cancel":
            break
        send("event:progress", {"taskId": task_id, "progress": i / float(steps), "message": "step %d" % i})
        time.sleep(0.3)
if not cancelled.is_set() or mode == "bug-ignore-cancel":
    send("event:progress", {"taskId": task_id, "progress": 1, "message": "done"})
else:
    send("event:log", {"level": "info", "message": "task cancelled, stopped"})
while True:  # idle until notify:shutdown (or EOF)
    time.sleep(1)
