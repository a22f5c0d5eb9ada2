#!/usr/bin/env node
// orchmsg worker in plain Node.js (no npm packages), written from README.md,
// docs/bindings.md ("Common to every protocol", "Node.js", "orchmsg") and the
// Agent<->Orchestrator stdio message spec alone, as an outsider would.
//
// Run:   aopconform run --protocol orchmsg -- node testdata/agents/orchmsg.mjs [MODE]
//
// Modes a correct agent may take (aopconform must exit 0):
//   correct   (default) get-task, query-agents and query-tasks (own tasks),
//             progress every 400 ms over ~2 s of asynchronous work, then
//             progress 1; obeys cancellation, shutdown, EOF and SIGTERM
//   fast      get-task, then reports the task done at once
// Buggy modes (each must make aopconform exit 1, failing the named check):
//   bug-ignore-cancel    keeps working and reporting progress after
//                        notify:task-cancelled (orchmsg/cancel/stops-task)
//   bug-reused-id        sends every request under one and the same id
//                        (orchmsg/correlation/unique-ids)
//   bug-percent-progress reports progress as a percentage (50, 100), not a
//                        fraction 0..1 (orchmsg/requests/payload)
//   bug-ignore-shutdown  logs notify:shutdown but never exits; SIGTERM stops
//                        it (orchmsg/shutdown/exit-within-grace;
//                        orchmsg/bind/exit-zero and, in orchmsg-withheld-request,
//                        orchmsg/correlation/responses-awaited are NOT-JUDGED
//                        under it)
// Each bug shows as one FAILURES block.
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";

// First thing: on SIGTERM exit at once.
process.on("SIGTERM", () => process.exit(0));

const MODES = ["correct", "fast", "bug-ignore-cancel", "bug-reused-id", "bug-percent-progress", "bug-ignore-shutdown"];
const mode = process.argv[2] ?? "correct";
if (!MODES.includes(mode)) {
  console.error(`orchmsg.mjs: unknown mode ${mode} (one of ${MODES.join(", ")})`);
  process.exit(2);
}

const log = (...a) => console.error("[orchmsg.mjs]", ...a); // stdout is the protocol's
const agentId = process.env.ORCHMSG_AGENT_ID;
const REQUEST_TIMEOUT_MS = 35_000; // the orchestrator times out at 30 s
const fixedId = "req-" + randomUUID(); // bug-reused-id only

let exiting = false;
let current = null; // {taskId, cancelled, done}
const pending = new Map(); // request id -> {resolve, timer}
const timers = new Set();

function send(type, payload, prefix = "evt") {
  if (exiting) return null;
  // BUG (bug-percent-progress): progress is a fraction 0..1, not a percentage.
  if (mode === "bug-percent-progress" && type === "event:progress") {
    payload = { ...payload, progress: Math.round(payload.progress * 100) };
  }
  const id = mode === "bug-reused-id" && prefix === "req" ? fixedId : `${prefix}-${randomUUID()}`;
  const msg = { type, id, timestamp: new Date().toISOString(), payload };
  if (agentId) msg.agentId = agentId;
  process.stdout.write(JSON.stringify(msg) + "\n"); // one write, one whole line
  return id;
}

// A request resolves with the response message, or null when nobody answers
// in time; meanwhile stdin is still read, so notifications are obeyed.
function request(type, payload) {
  const id = send(type, payload, "req");
  if (id === null) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      log(`${type} ${id}: no answer, giving up`);
      resolve(null);
    }, REQUEST_TIMEOUT_MS);
    pending.set(id, { resolve, timer });
  });
}

function sleep(ms) {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      timers.delete(t);
      resolve();
    }, ms);
    timers.add(t);
  });
}

// Leave once stdout is drained; clear every timer so nothing else is sent.
function leave(code = 0) {
  if (exiting) return;
  exiting = true;
  for (const t of timers) clearTimeout(t);
  for (const { timer } of pending.values()) clearTimeout(timer);
  process.stdout.write("", () => process.exit(code));
}

const live = (job) => !exiting && !job.done && (!job.cancelled || mode === "bug-ignore-cancel");

async function work(taskId) {
  const job = { taskId, cancelled: false, done: false };
  current = job;
  const res = await request("request:get-task", { taskId });
  if (!live(job)) return;
  const details = res?.type === "response:success" ? res.payload?.task : null;
  log("task:", details ? JSON.stringify(details).slice(0, 200) : "(no details)");
  if (mode === "fast") {
    job.done = true;
    send("event:progress", { taskId, progress: 1, message: "done" });
    return;
  }
  // Look around (own tasks only), without waiting on the answers.
  request("request:query-agents", { role: "reviewer" }).then((r) => {
    if (r) log("agents:", JSON.stringify(r.payload?.agents ?? r.error));
  });
  request("request:query-tasks", { status: "running", limit: 5 }).then((r) => {
    if (r) log("tasks:", JSON.stringify(r.payload?.tasks ?? r.error));
  });
  send("event:log", { level: "info", message: `working on ${taskId}` });
  const steps = 5;
  for (let i = 1; i < steps; i++) {
    if (!live(job)) return;
    send("event:progress", { taskId, progress: i / steps, message: `step ${i} of ${steps}` });
    await sleep(400);
  }
  if (!live(job)) return;
  job.done = true;
  send("event:progress", { taskId, progress: 1, message: "done" });
}

function onMessage(m) {
  switch (m.type) {
    case "response:success":
    case "response:error": {
      const p = pending.get(m.correlationId);
      if (!p) {
        log("response to no pending request:", m.correlationId);
        return;
      }
      pending.delete(m.correlationId);
      clearTimeout(p.timer);
      p.resolve(m);
      return;
    }
    case "notify:task-assigned": {
      const taskId = m.payload?.taskId;
      if (typeof taskId !== "string" || taskId === "") {
        log("task-assigned without a taskId");
        return;
      }
      log("assigned", taskId);
      work(taskId).catch((err) => {
        log("work failed:", err);
        send("event:error", { taskId, error: String(err?.message ?? err), recoverable: false });
      });
      return;
    }
    case "notify:task-cancelled":
      log("cancelled", m.payload?.taskId, m.payload?.reason ?? "");
      if (current && current.taskId === m.payload?.taskId) current.cancelled = true;
      return;
    case "notify:shutdown":
      log("shutdown, grace", m.payload?.gracePeriod, "ms");
      if (mode === "bug-ignore-shutdown") return;
      leave(0);
      return;
    default:
      log("ignoring message of type", m.type);
  }
}

const rl = createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  if (line.trim() === "") return;
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    log("not JSON on stdin:", line.slice(0, 100));
    return;
  }
  if (m && typeof m === "object" && typeof m.type === "string") onMessage(m);
});
// EOF on stdin: the orchestrator is gone; exit 0.
rl.on("close", () => {
  if (mode === "bug-ignore-shutdown") return;
  leave(0);
});
