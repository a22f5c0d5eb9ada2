#!/usr/bin/env python3
"""A small AOS 0.1.0 guardian, written from docs/bindings.md ("Orchestrators",
aos) alone, for `aopconform run --side orchestrator --protocol aos`.

It listens at $AOPKIT_LISTEN (127.0.0.1:PORT), answers JSON-RPC 2.0 POSTs at /,
allows every tool call, and exits 0 on SIGTERM.

An argument selects a bug, to show that the suite catches it:
  approve            decides "approve" instead of allow, deny or modify
  ignore-version     does not check that jsonrpc is exactly "2.0"
  no-params-check    allows a steps/toolCallRequest without its toolCallRequest
  string-ids         answers every id as a string (1 comes back as "1")
  plain-parse-error  answers malformed JSON with HTTP 400 and a text body
"""

import json
import os
import signal
import sys
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "correct"

METHODS = {
    "ping", "steps/agentTrigger", "steps/knowledgeRetrieval", "steps/memoryStore",
    "steps/memoryContextRetrieval", "steps/message", "steps/toolCallRequest",
    "steps/toolCallResult", "protocols/A2A", "protocols/MCP",
}


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def valid_id(v):
    return isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))


def error(rid, code, message):
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def params_problem(method, params):
    """A minimal check of the params the guardian needs to decide."""
    if method == "ping":
        return None
    if method in ("protocols/A2A", "protocols/MCP"):
        return None if isinstance(params.get("message"), dict) else "params.message is required"
    if not isinstance(params.get("context"), dict):
        return "params.context is required"
    if method == "steps/toolCallRequest" and MODE != "no-params-check":
        tc = params.get("toolCallRequest")
        if not isinstance(tc, dict) or not isinstance(tc.get("executionId"), str) or not isinstance(tc.get("toolId"), str):
            return "params.toolCallRequest {executionId, toolId, inputs} is required"
    if method == "steps/toolCallResult" and not isinstance(params.get("executionId"), str):
        return "params.executionId is required"
    return None


def answer(body):
    try:
        req = json.loads(body)
    except ValueError:
        return error(None, -32700, "Parse error")
    if not isinstance(req, dict):
        return error(None, -32600, "Invalid Request")
    rid = req.get("id")
    if not valid_id(rid):
        return error(None, -32600, "Invalid Request")
    if (MODE != "ignore-version" and req.get("jsonrpc") != "2.0") or not isinstance(req.get("method"), str):
        return error(rid, -32600, "Invalid Request")
    method = req["method"]
    params = req.get("params", {})
    if not isinstance(params, dict):
        return error(rid, -32602, "Invalid params")
    if method not in METHODS:
        return error(rid, -32601, "Method not found")
    problem = params_problem(method, params)
    if problem:
        return error(rid, -32602, "Invalid params: " + problem)
    if method == "ping":
        return {"jsonrpc": "2.0", "id": rid, "result": {"status": "connected", "version": "0.1.0", "timestamp": now()}}
    decision = "approve" if MODE == "approve" else "allow"
    return {"jsonrpc": "2.0", "id": rid, "result": {"decision": decision, "message": "Allowed by aos_guardian.py"}}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        resp = answer(body)
        if MODE == "plain-parse-error" and resp.get("error", {}).get("code") == -32700:
            self.send_response(400)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"bad json\n")
            return
        if MODE == "string-ids" and resp.get("id") is not None:
            resp["id"] = str(resp["id"])
        data = json.dumps(resp).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, fmt, *args):
        sys.stderr.write("aos_guardian.py: " + (fmt % args) + "\n")


def main():
    host, port = os.environ["AOPKIT_LISTEN"].rsplit(":", 1)
    server = ThreadingHTTPServer((host, int(port)), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # A guardian's stdout is free (docs/bindings.md): a banner is no answer.
    print("listening on http://%s/" % os.environ["AOPKIT_LISTEN"], flush=True)
    try:
        server.serve_forever()
    except SystemExit:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
