#!/usr/bin/env python3
"""A small AOF/1 scheduler, written from docs/bindings.md ("Orchestrators", aof) alone.

It reads {"dataDir", "taskId", "heartbeatTtlMs"} from $AOPKIT_TASK, leases the ready
task to its assignee (run.json, run_heartbeat.json), runs $AOPKIT_AGENT with the aof
agent binding's environment, routes the agent's envelopes (run_result.json, handoff
artifacts with the depth guard, rejections as events), applies the completion
transitions at session_end, recovers a stale heartbeat (outcome-driven, or reclaim to
ready and stop the agent), then dispatches the child tasks it accepted, one at a time.
Logs go to stderr.

Usage: aof_orch.py [MODE]. MODE "correct" (default) or one bug:
  reclaim-too-early        treats a heartbeat as stale a quarter of its TTL after lastHeartbeat
  allow-nested-delegation  no depth guard
  blind-requeue            stale recovery ignores run_result.json
  done-skips-review        done goes to done even when review is required
  no-child-dispatch        never dispatches the children it accepted
  accept-invalid-report    writes run_result.json without validating the report
  no-run-json              the lease writes no run.json
"""
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"
STATUSES = ["backlog", "ready", "in-progress", "review", "done", "blocked", "cancelled"]
OUTCOMES = ["done", "blocked", "needs_review", "partial"]
TYPES = ["completion.report", "status.update", "handoff.request", "handoff.accepted", "handoff.rejected"]
# The task state machine (aof-1 §Overview, the lifecycle diagram).
MOVES = {"backlog": ["ready", "blocked", "cancelled"], "ready": ["in-progress", "backlog", "blocked", "cancelled"],
         "in-progress": ["review", "blocked", "ready", "cancelled"], "review": ["done", "in-progress", "blocked", "cancelled"],
         "blocked": ["ready", "review", "cancelled"]}
TASK_ID = re.compile(r"^TASK-\d{4}-\d{2}-\d{2}-\d{3}$")
GRACE = 2.0


def fmt(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_time(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def log(*args):
    print("aof_orch:", *args, file=sys.stderr, flush=True)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Store:
    def __init__(self, data):
        self.data = data
        self.lock = threading.RLock()

    def path(self, status, tid):
        return os.path.join(self.data, "tasks", status, tid + ".md")

    def run_dir(self, tid):
        return os.path.join(self.data, "runs", tid)

    def event(self, typ, actor, tid, payload=None):
        with self.lock:
            os.makedirs(os.path.join(self.data, "events"), exist_ok=True)
            with open(os.path.join(self.data, "events", "events.jsonl"), "a") as f:
                f.write(json.dumps({"type": typ, "timestamp": fmt(time.time()), "actor": actor, "taskId": tid, "payload": payload or {}}) + "\n")

    def find(self, tid):
        for st in STATUSES:
            if os.path.exists(self.path(st, tid)):
                return st
        return None

    def read(self, tid):
        """(status, front lines, body, metadata dict) of a task, or None."""
        st = self.find(tid)
        if st is None:
            return None
        with open(self.path(st, tid)) as f:
            text = f.read()
        m = re.match(r"^---\n(.*?)\n---\n?(.*)$", text, re.S)
        if not m:
            return None
        lines = m.group(1).split("\n")
        meta, fields, section = {}, {}, None
        for line in lines:
            if not line.strip() or ":" not in line:
                continue
            k, v = line.split(":", 1)
            v = v.strip().strip('"').strip("'")
            if line[0] in " \t":
                if section == "metadata":
                    meta[k.strip()] = v
            else:
                section = k.strip() if v == "" else None
                fields[k.strip()] = v
        return {"status": st, "lines": lines, "body": m.group(2), "meta": meta, "fields": fields}

    def write(self, tid, status, lines, body):
        with open(self.path(status, tid), "w") as f:
            f.write("---\n" + "\n".join(lines) + "\n---\n" + body)

    def append_work_log(self, tid, entry):
        """Adds "- <timestamp> <entry>" under the body's "## Work Log" section."""
        with self.lock:
            t = self.read(tid)
            body = t["body"]
            if body and not body.endswith("\n"):
                body += "\n"
            if "## Work Log\n" not in body:
                body += "\n## Work Log\n\n"
            self.write(tid, t["status"], t["lines"], body + "- %s %s\n" % (fmt(time.time()), entry))

    def set_meta(self, tid, key, value):
        with self.lock:
            t = self.read(tid)
            lines = [l for l in t["lines"] if not (l[:1] in " \t" and l.strip().startswith(key + ":"))]
            if "metadata:" not in lines:
                lines.append("metadata:")
            lines.insert(lines.index("metadata:") + 1, "  %s: %s" % (key, value))
            self.write(tid, t["status"], lines, t["body"])

    def transition(self, tid, to, reason, actor="scheduler"):
        with self.lock:
            t = self.read(tid)
            if t is None or t["status"] == to:
                return False
            frm = t["status"]
            lines = []
            for l in t["lines"]:
                if l.startswith("status:"):
                    l = "status: " + to
                elif l.startswith("updatedAt:"):
                    l = 'updatedAt: "%s"' % fmt(time.time())
                lines.append(l)
            os.makedirs(os.path.dirname(self.path(to, tid)), exist_ok=True)
            self.write(tid, to, lines, t["body"])
            os.remove(self.path(frm, tid))
            old_dir = os.path.join(self.data, "tasks", frm, tid)
            if os.path.isdir(old_dir):
                os.replace(old_dir, os.path.join(self.data, "tasks", to, tid))
            self.event("task.transitioned", actor, tid, {"from": frm, "to": to, "reason": reason})
            return True


def valid_envelope(env):
    """The reason an envelope is invalid, or None."""
    if not isinstance(env, dict) or env.get("protocol") != "aof" or env.get("version") != 1:
        return "protocol/version"
    for k in ("type", "taskId", "fromAgent", "toAgent", "sentAt"):
        if not isinstance(env.get(k), str) or not env.get(k):
            return k
    if not TASK_ID.match(env["taskId"]):
        return "taskId"
    try:
        parse_time(env["sentAt"])
    except ValueError:
        return "sentAt"
    p = env.get("payload")
    if not isinstance(p, dict):
        return "payload"
    if env["type"] == "completion.report" and MODE != "accept-invalid-report":
        if p.get("outcome") not in OUTCOMES or not isinstance(p.get("summaryRef"), str) or not isinstance(p.get("notes"), str):
            return "payload"
        tests = p.get("tests")
        if not isinstance(tests, dict) or not all(isinstance(tests.get(k), int) and tests.get(k) >= 0 for k in ("total", "passed", "failed")):
            return "payload.tests"
        if tests["passed"] + tests["failed"] > tests["total"] or len(p["notes"]) > 10000:
            return "payload"
    if env["type"] == "handoff.request":
        for k in ("taskId", "parentTaskId", "fromAgent", "toAgent", "dueBy"):
            if not isinstance(p.get(k), str):
                return "payload." + k
    return None


def transitions(review_required, outcome):
    if outcome == "done":
        return ["review", "done"] if (not review_required or MODE == "done-skips-review") else ["review"]
    return {"blocked": ["blocked"], "needs_review": ["review"], "partial": ["review"]}.get(outcome, [])


class Scheduler:
    def __init__(self, store, ttl):
        self.store, self.ttl = store, ttl
        self.children = []
        self.leases = {}  # task id -> the agent it is leased to

    def lease(self, tid):
        t = self.store.read(tid)
        agent = t["fields"].get("assignee") or "agent-under-test"
        self.store.transition(tid, "in-progress", "lease_acquired", "scheduler")
        now = time.time()
        rd = self.store.run_dir(tid)
        if MODE != "no-run-json":
            write_json(os.path.join(rd, "run.json"), {"taskId": tid, "agentId": agent, "startedAt": fmt(now), "status": "running",
                                                      "artifactPaths": {"inputs": "inputs/", "work": "work/", "output": "output/"}, "metadata": {}})
        write_json(os.path.join(rd, "run_heartbeat.json"), {"taskId": tid, "agentId": agent, "lastHeartbeat": fmt(now), "beatCount": 1, "expiresAt": fmt(now + self.ttl)})
        self.leases[tid] = agent
        self.store.event("lease.acquired", "scheduler", tid, {"agent": agent})
        return agent

    def apply(self, tid, outcome, reason):
        t = self.store.read(tid)
        review_required = t["meta"].get("reviewRequired") != "false"
        for to in transitions(review_required, outcome):
            self.store.transition(tid, to, reason)

    def route(self, tid, line):
        line = line.strip()
        text = line[len("AOF/1 "):] if line.startswith("AOF/1 ") else line
        if not text.startswith("{"):
            return
        try:
            env = json.loads(text)
        except ValueError:
            self.store.event("protocol.message.rejected", "unknown", tid, {"reason": "invalid_json"})
            return
        if not isinstance(env, dict) or env.get("protocol") != "aof":
            return
        bad = valid_envelope(env)
        if bad:
            self.store.event("protocol.message.rejected", env.get("fromAgent", "unknown"), env.get("taskId", tid), {"reason": "invalid_envelope", "detail": bad})
            return
        typ, p, frm = env["type"], env["payload"], env["fromAgent"]
        if typ not in TYPES:
            self.store.event("protocol.message.unknown", frm, env["taskId"], {"type": typ})
            return
        status = self.store.find(env["taskId"])
        if status is None:
            self.store.event("protocol.message.rejected", frm, env["taskId"], {"reason": "task_not_found"})
            if typ == "handoff.request":
                self.store.event("delegation.rejected", frm, env["taskId"], {"reason": "task_not_found"})
            return
        holder = self.leases.get(env["taskId"])
        if typ in ("completion.report", "status.update") and status == "in-progress" and holder and frm != holder:
            self.store.event("protocol.message.rejected", frm, env["taskId"], {"reason": "unauthorized_agent"})
            return
        self.store.event("protocol.message.received", frm, env["taskId"], {"type": typ})
        if typ == "status.update":
            self.status_update(env["taskId"], p, frm)
        elif typ == "completion.report" and status == "done":
            pass  # already done: no-op
        elif typ == "completion.report":
            rr = {"taskId": env["taskId"], "agentId": frm, "completedAt": fmt(time.time()), "outcome": p.get("outcome"),
                  "summaryRef": p.get("summaryRef"), "deliverables": p.get("deliverables", []), "tests": p.get("tests"),
                  "blockers": p.get("blockers", []), "notes": p.get("notes")}
            write_json(os.path.join(self.store.run_dir(env["taskId"]), "run_result.json"), rr)
            self.store.event("task.completed", frm, env["taskId"], {"outcome": p.get("outcome")})
        elif typ == "handoff.request":
            self.handoff(env, p, frm)
        elif typ == "handoff.rejected":
            self.store.transition(env["taskId"], "blocked", p.get("reason", "handoff rejected"), frm)
            self.store.event("delegation.rejected", frm, env["taskId"], {"reason": p.get("reason", "")})
        elif typ == "handoff.accepted":
            self.store.event("delegation.accepted", frm, env["taskId"])

    def status_update(self, tid, p, frm):
        cur, to = self.store.find(tid), p.get("status")
        parts = []
        if p.get("progress"):
            parts.append("Progress: " + p["progress"])
        if p.get("notes"):
            parts.append("Notes: " + p["notes"])
        if p.get("blockers"):
            parts.append("Blockers: " + ", ".join(p["blockers"]))
        if to and to != cur and to in MOVES.get(cur, []):
            reason = (p.get("blockers") or [None])[0] or p.get("notes") or p.get("progress") or to
            self.store.transition(tid, to, reason, frm)
            return
        if parts:
            self.store.append_work_log(tid, " | ".join(parts))

    def handoff(self, env, p, frm):
        child = env["taskId"]
        if p["taskId"] != child:
            self.store.event("protocol.message.rejected", frm, child, {"reason": "taskId_mismatch"})
            return
        parent = self.store.read(p["parentTaskId"])
        if parent is None:
            self.store.event("delegation.rejected", frm, child, {"reason": "parent_not_found"})
            return
        try:
            depth = int(parent["meta"].get("delegationDepth", "0"))
        except ValueError:
            depth = 0
        if depth + 1 > 1 and MODE != "allow-nested-delegation":
            self.store.event("delegation.rejected", frm, child, {"reason": "nested_delegation"})
            return
        st = self.store.find(child)
        inputs = os.path.join(self.store.data, "tasks", st, child, "inputs")
        if read_json(os.path.join(inputs, "handoff.json")) == p:
            return  # re-sent: the same artifacts, no duplicate delegation
        write_json(os.path.join(inputs, "handoff.json"), p)
        with open(os.path.join(inputs, "handoff.md"), "w") as f:
            f.write("# Handoff Request\n\n**From:** %s\n**To:** %s\n**Due By:** %s\n" % (p["fromAgent"], p["toAgent"], p["dueBy"]))
        self.store.set_meta(child, "delegationDepth", depth + 1)
        self.store.set_meta(child, "parentTaskId", p["parentTaskId"])
        self.store.event("delegation.requested", frm, child, {"parentTaskId": p["parentTaskId"]})
        if child not in self.children:
            self.children.append(child)

    def stale(self, tid):
        hb = read_json(os.path.join(self.store.run_dir(tid), "run_heartbeat.json"))
        if not hb:
            return False
        try:
            exp, last = parse_time(hb["expiresAt"]), parse_time(hb["lastHeartbeat"])
        except (KeyError, ValueError, AttributeError):
            return False
        if MODE == "reclaim-too-early":
            exp = last + (exp - last) / 4
        return exp <= time.time()

    def recover(self, tid):
        rr = read_json(os.path.join(self.store.run_dir(tid), "run_result.json"))
        if rr and MODE != "blind-requeue":
            self.apply(tid, rr.get("outcome"), "stale_heartbeat_" + str(rr.get("outcome")))
            return
        self.store.transition(tid, "ready", "stale_heartbeat_reclaim")
        run_path = os.path.join(self.store.run_dir(tid), "run.json")
        run = read_json(run_path) or {"taskId": tid}
        run["status"], run["expiredAt"] = "expired", fmt(time.time())
        write_json(run_path, run)
        self.store.event("run.expired", "scheduler", tid, {"reason": "stale_heartbeat"})

    def dispatch(self, tid):
        agent = self.lease(tid)
        d = self.store.data
        env = dict(os.environ, AOP_PROTOCOL="aof", AOF_DATA_DIR=d, AOF_TASK_ID=tid, AOF_AGENT_ID=agent,
                   AOF_TASK_FILE=os.path.join(d, "tasks", "in-progress", tid + ".md"), AOF_RUN_DIR=self.store.run_dir(tid) + "/")
        log("dispatch", tid, "to", agent)
        proc = subprocess.Popen([os.environ["AOPKIT_AGENT"]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env,
                                start_new_session=True, text=True)

        def reader():
            for line in proc.stdout:
                self.route(tid, line)
        rt = threading.Thread(target=reader, daemon=True)
        rt.start()
        while True:
            if proc.poll() is not None:
                rt.join(2)
                break
            if self.store.find(tid) == "in-progress" and self.stale(tid):
                log("stale heartbeat:", tid)
                self.recover(tid)
                stop(proc)
                rt.join(2)
                return
            time.sleep(0.1)
        log(tid, "agent exited", proc.returncode)
        if proc.returncode == 0 and read_json(os.path.join(self.store.run_dir(tid), "run_result.json")):
            self.store.event("session.ended", "scheduler", tid)
            self.apply(tid, read_json(os.path.join(self.store.run_dir(tid), "run_result.json")).get("outcome"), "completion")
        while self.store.find(tid) == "in-progress":
            if self.stale(tid):
                log("stale heartbeat after exit:", tid)
                self.recover(tid)
                break
            time.sleep(0.1)


def stop(proc):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(GRACE)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def main():
    with open(os.environ["AOPKIT_TASK"]) as f:
        task = json.load(f)
    store = Store(task["dataDir"])
    sched = Scheduler(store, task.get("heartbeatTtlMs", 300000) / 1000.0)
    if store.find(task["taskId"]) != "ready":
        log("task", task["taskId"], "is not ready")
        return 2
    sched.dispatch(task["taskId"])
    done = set()
    while MODE != "no-child-dispatch":
        todo = [c for c in sched.children if c not in done and store.find(c) == "ready"]
        if not todo:
            break
        done.add(todo[0])
        sched.dispatch(todo[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
