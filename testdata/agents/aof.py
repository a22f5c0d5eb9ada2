#!/usr/bin/env python3
"""aof agent written from docs/bindings.md and the AOF/1 guide alone.

Usage: aof.py [MODE]. Correct modes:
  correct     heartbeats every TTL/3, status.update, summary file, completion.report;
              delegates when its task names metadata.delegateTo at depth 0;
              acknowledges its handoff when it is a delegated child
  fast        completes at once (no status.update, no delegation)
  slow-start  waits 2 s before anything
  minimal     no optional message (no status.update, no delegation)
Buggy modes (aopconform must exit 1):
  bug-no-heartbeat  never refreshes run_heartbeat.json and works 4 s
  bug-two-reports   sends completion.report twice
  bug-nested        delegates although it is a delegated child
"""
import json, os, re, signal, sys, threading, time

mode = sys.argv[1] if len(sys.argv) > 1 else "correct"
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
if mode == "slow-start":
    time.sleep(2)

data_dir = os.environ["AOF_DATA_DIR"]
task_id = os.environ["AOF_TASK_ID"]
me = os.environ["AOF_AGENT_ID"]
run_dir = os.environ["AOF_RUN_DIR"]
task_file = os.environ["AOF_TASK_FILE"]
task_dir = os.path.join(data_dir, "tasks", "in-progress", task_id)
hb_path = os.path.join(run_dir, "run_heartbeat.json")


def iso(t=None):
    t = time.time() if t is None else t
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


def parse(s):
    return time.mktime(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone


hb = json.load(open(hb_path))
ttl = max(0.3, parse(hb["expiresAt"]) - parse(hb["lastHeartbeat"]))
beats = [hb.get("beatCount", 0)]
stop = threading.Event()


def beat():
    beats[0] += 1
    now = time.time()
    # A plain rewrite (not atomic): the reader must cope with a partial file.
    with open(hb_path, "w") as f:
        json.dump({"taskId": task_id, "agentId": me, "lastHeartbeat": iso(now), "beatCount": beats[0],
                   "expiresAt": iso(now + ttl)}, f)


def heartbeats():
    while not stop.wait(ttl / 3):
        beat()


if mode != "bug-no-heartbeat":
    beat()
    threading.Thread(target=heartbeats, daemon=True).start()


def send(typ, payload, tid=None):
    tid = tid or task_id
    env = {"protocol": "aof", "version": 1, "type": typ, "taskId": tid, "fromAgent": me, "toAgent": "dispatcher",
           "sentAt": iso(), "payload": payload}
    sys.stdout.write("AOF/1 " + json.dumps(env) + "\n")
    sys.stdout.flush()


front = open(task_file).read().split("---")[1]
depth = int((re.search(r"delegationDepth:\s*(\d+)", front) or [0, "0"])[1])
delegate_to = (re.search(r"delegateTo:\s*(\S+)", front) or [None, ""])[1].strip("'\"")

if depth >= 1:
    # A delegated child: acknowledge the handoff before working.
    if os.path.exists(os.path.join(task_dir, "inputs", "handoff.json")):
        send("handoff.accepted", {"taskId": task_id, "accepted": True})

if mode not in ("fast", "minimal"):
    send("status.update", {"taskId": task_id, "agentId": me, "progress": "Step 1/2 done"})

if (delegate_to and depth == 0 and mode in ("correct", "slow-start")) or (mode == "bug-nested" and depth >= 1):
    # Delegation: create the child task in tasks/ready/ (a new id of my choosing),
    # then ask the dispatcher with handoff.request.
    m = re.match(r"(TASK-\d{4}-\d{2}-\d{2}-)(\d{3})$", task_id)
    child = "%s%03d" % (m.group(1), (int(m.group(2)) + 700) % 1000)
    now = iso()
    with open(os.path.join(data_dir, "tasks", "ready", child + ".md"), "w") as f:
        f.write("---\nid: %s\ntitle: Review for %s\nstatus: ready\nassignee: %s\ncreatedAt: %s\nupdatedAt: %s\n"
                "metadata:\n  parentTaskId: %s\n---\n# Review\n\nReview the parent's work.\n"
                % (child, task_id, delegate_to or "swe-qa", now, now, task_id))
    send("handoff.request", {"taskId": child, "parentTaskId": task_id, "fromAgent": me, "toAgent": delegate_to or "swe-qa",
                             "acceptanceCriteria": ["Reviewed"], "expectedOutputs": ["outputs/review.md"],
                             "contextRefs": [], "constraints": [], "dueBy": iso(time.time() + 86400)}, tid=child)

time.sleep({"fast": 0.0, "bug-no-heartbeat": 4.0}.get(mode, 1.0))
os.makedirs(os.path.join(task_dir, "outputs"), exist_ok=True)
with open(os.path.join(task_dir, "outputs", "summary.md"), "w") as f:
    f.write("# Summary\n\nDone.\n")
report = {"outcome": "done", "summaryRef": "outputs/summary.md", "deliverables": ["outputs/summary.md"],
          "tests": {"total": 1, "passed": 1, "failed": 0}, "blockers": [], "notes": "Done."}
send("completion.report", report)
if mode == "bug-two-reports":
    send("completion.report", report)
stop.set()
sys.exit(0)
