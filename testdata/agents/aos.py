#!/usr/bin/env python3
"""aos agent written from docs/bindings.md and the AOS 0.1.0 spec alone.

Usage: aos.py [MODE]. Correct modes:
  correct     ping, a steps/message, every tool call guarded; 1 s guardian timeout, fail closed
  fast        no ping, no pause: the script as fast as it goes
  slow-start  waits 2 s before its first request
  minimal     no optional request (no ping, no steps/message)
Buggy modes (aopconform must exit 1):
  bug-fail-open   executes a tool when the guardian does not answer within 1 s
  bug-ignore-deny executes denied tools
  bug-reuse-id    uses one executionId for every call
"""
import itertools, json, os, signal, sys, time, urllib.error, urllib.request, uuid

mode = sys.argv[1] if len(sys.argv) > 1 else "correct"
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
url = os.environ["AOS_GUARDIAN_URL"]
ids = itertools.count(1)
GUARDIAN_TIMEOUT = 1.0


def iso():
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % int((t % 1) * 1000)


steps = itertools.count(1)


def context():
    return {"agent": {"name": "py-agent", "id": "py-agent-1", "instructions": "Follow the script, obey the guardian.",
                      "version": "1.0.0", "provider": {"name": "thirdparty", "url": "https://example.com"}},
            "session": {"id": "session-" + str(os.getpid())}, "turnId": "turn-1", "stepId": "step-%d" % next(steps),
            "timestamp": iso()}


def call(method, params):
    """POST one JSON-RPC request; the result, or None on an error or no answer."""
    body = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params}).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=GUARDIAN_TIMEOUT) as r:
            resp = json.loads(r.read() or b"null")
    except (urllib.error.URLError, OSError, ValueError):
        return None
    if not isinstance(resp, dict) or "error" in resp:
        return None
    return resp.get("result")


if mode == "slow-start":
    time.sleep(2)
script = json.loads(sys.stdin.readline() or "{}")
if mode == "correct":
    call("ping", {"timestamp": iso()})
if mode in ("correct", "slow-start"):
    call("steps/message", {"context": context(), "message": {"id": str(uuid.uuid4()), "role": "user",
                                                             "content": [{"kind": "text", "text": script.get("task", "")}]},
                           "citation": []})
fixed = str(uuid.uuid4())
for tool in script.get("tools", []):
    exec_id = fixed if mode == "bug-reuse-id" else str(uuid.uuid4())
    name, args = tool["name"], tool.get("arguments", {})
    res = call("steps/toolCallRequest", {"context": context(), "toolCallRequest": {
        "executionId": exec_id, "toolId": name, "inputs": [{"name": k, "value": v} for k, v in args.items()]}})
    decision = (res or {}).get("decision")
    if decision == "modify":
        mod = res["modifiedRequest"]["params"]["toolCallRequest"]
        name = mod.get("toolId", name)
        args = {i["name"]: i["value"] for i in mod.get("inputs", [])}
    elif decision == "deny" and mode == "bug-ignore-deny":
        decision = "allow"
    elif decision is None and mode == "bug-fail-open":
        decision = "allow"
    if decision not in ("allow", "modify"):
        continue  # deny, an error or no answer: fail closed
    print(json.dumps({"executed": {"executionId": exec_id, "name": name, "arguments": args}}), flush=True)
    call("steps/toolCallResult", {"context": context(), "executionId": exec_id,
                                  "result": {"outputs": [{"kind": "text", "text": "ok"}], "isError": False}})
sys.exit(0)
