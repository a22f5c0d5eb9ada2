#!/usr/bin/env node
// A port of the message handling of forge's legacy orchestrator (vieko/forge at
// 2e72751, the upstream prototype of the orchmsg spec: src/core/message-handler.ts,
// src/core/orchestrator.ts, src/runtime/local.ts), written for aopkit in plain
// Node.js, its behaviour kept, deviations included, so that `aopconform run
// --side orchestrator` can be shown to name each one:
//
//   - the assignment is {"type":"task_notification","taskId","message"}, not
//     notify:task-assigned (local.ts executeTask)
//                                              -> orchmsg/orch/notify/task-assigned
//   - request:ask-user has no handler: INVALID_MESSAGE_TYPE "No handler for
//     message type" (message-handler.ts)       -> orchmsg/orch/resp/fits-request
//   - get-task of a task it does not hold (or of none) throws "Task not found: X",
//     answered INTERNAL_ERROR; no own-task check
//                                              -> orchmsg/orch/errors/foreign-task,
//                                                 orchmsg/orch/errors/invalid-request
//   - the rate limit (100 messages per second, messages over it not counted)
//     answers a request INTERNAL_ERROR "Rate limit exceeded" and drops an event
//   - stdout is parsed per chunk: JSON.parse of the whole chunk, trimmed; a chunk
//     of two lines, or half a line, is a log, and its messages are lost
//   - query-agents ignores its status filter -> orchmsg/orch/resp/query-filters;
//     query-tasks returns nothing without one; ids are bare UUIDs; no
//     notify:task-cancelled (a task past its timeout runs on)
//                                              -> orchmsg/orch/notify/task-cancelled;
//     no request timeout (a question nobody answers: INVALID_MESSAGE_TYPE, never
//     TIMEOUT)                                 -> orchmsg/orch/errors/timeout;
//     a missing task is INTERNAL_ERROR         -> orchmsg/orch/errors/not-found;
//     no validation; progress events are logged only, so it never learns that the
//     task is done and never shuts its agent down.
//   - agents run in a workspace under a fixed root, /tmp/forge-workspaces
//     (FORGE_WORKSPACES here, so that a test can allow it: the only departure).
//   - it is a daemon and logs pino-like JSON to stdout.
//
// The launcher at the bottom is the pattern of docs/orchestrator-side.md
// "Running an existing orchestrator": start the orchestrator, spawn one agent
// from $AOPKIT_AGENT with the host's own arguments, submit the task from
// $AOPKIT_TASK.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const RATE_LIMIT = 100;
// pino-like JSON logs on stdout, as forge writes them.
const log = (...a) => process.stdout.write(JSON.stringify({ level: 30, time: Date.now(), name: "forge", msg: a.join(" ") }) + "\n");
const now = () => new Date().toISOString();

class MessageHandler {
  constructor(orch) {
    this.orch = orch;
    this.handlers = new Map([
      ["request:get-task", (m) => this.getTask(m)],
      // getAvailableAgents(role, capabilities, tags): the status filter is ignored.
      ["request:query-agents", (m) => ({ agents: [...this.orch.agents.values()].filter((a) => !m.payload?.role || a.info.role === m.payload.role).map((a) => a.info) })],
      // getTasks(status): nothing without a status.
      ["request:query-tasks", (m) => ({ tasks: m.payload?.status ? [...this.orch.tasks.values()].filter((t) => t.status === m.payload.status).slice(0, m.payload.limit || 100) : [] })],
      ["request:submit-task", (m) => this.submitTask(m)],
    ]);
    this.times = new Map();
  }
  // checkRateLimit: a message over the limit is refused and not counted.
  checkRateLimit(agentId) {
    const t = Date.now();
    const ts = (this.times.get(agentId) || []).filter((x) => t - x < 1000);
    if (ts.length >= RATE_LIMIT) return false;
    ts.push(t);
    this.times.set(agentId, ts);
    return true;
  }
  getTask(m) {
    const id = m.payload && m.payload.taskId;
    const task = this.orch.tasks.get(id);
    if (!task) throw new Error("Task not found: " + id);
    return { task: { id: task.id, name: task.name, type: task.type, status: task.status, agentId: task.agentId, createdAt: task.createdAt } };
  }
  submitTask(m) {
    const id = randomUUID();
    const task = { id, name: m.payload && m.payload.name, type: m.payload && m.payload.type, status: "queued", createdAt: now() };
    this.orch.tasks.set(id, task);
    return { task: { id: task.id, name: task.name, status: task.status, createdAt: task.createdAt } };
  }
  handle(agent, msg) {
    if (msg.type.startsWith("request:")) {
      if (!this.checkRateLimit(agent.info.id)) {
        agent.send({ type: "response:error", id: randomUUID(), correlationId: msg.id, timestamp: now(), error: { code: "INTERNAL_ERROR", message: "Rate limit exceeded" } });
        return;
      }
      const h = this.handlers.get(msg.type);
      if (!h) {
        agent.send({ type: "response:error", id: randomUUID(), correlationId: msg.id, timestamp: now(), error: { code: "INVALID_MESSAGE_TYPE", message: "No handler for message type: " + msg.type } });
        return;
      }
      try {
        agent.send({ type: "response:success", id: randomUUID(), correlationId: msg.id, timestamp: now(), payload: h(msg) });
      } catch (e) {
        agent.send({ type: "response:error", id: randomUUID(), correlationId: msg.id, timestamp: now(), error: { code: "INTERNAL_ERROR", message: e.message } });
      }
      return;
    }
    if (!this.checkRateLimit(agent.info.id)) {
      log("Event dropped due to rate limit");
      return;
    }
    log(msg.type, JSON.stringify(msg.payload || {}));
  }
}

class LocalRuntime {
  constructor(orch, id, command, args) {
    this.info = { id, role: "worker", status: "idle" };
    const workspace = join(process.env.FORGE_WORKSPACES || "/tmp/forge-workspaces", id);
    mkdirSync(workspace, { recursive: true }); // refused by a sandbox that confines writes
    this.proc = spawn(command, args, { cwd: workspace, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, AOP_PROTOCOL: "orchmsg", ORCHMSG_AGENT_ID: id } });
    // Per chunk, as upstream: the whole chunk is one message or a log.
    this.proc.stdout.on("data", (data) => {
      const raw = data.toString().trim();
      try {
        const msg = JSON.parse(raw);
        if (msg && typeof msg.type === "string") {
          if (!msg.agentId) msg.agentId = id;
          orch.handler.handle(this, msg);
          return;
        }
      } catch {}
      log("agent log", raw.slice(0, 200));
    });
    this.proc.stderr.on("data", (d) => log("agent stderr", d.toString().slice(0, 200)));
    this.proc.stdin.on("error", () => {});
    this.proc.on("exit", (code) => log("agent", id, "exited", code));
  }
  send(msg) {
    if (this.proc.stdin.writable) this.proc.stdin.write(JSON.stringify(msg) + "\n");
  }
}

class Orchestrator {
  constructor() {
    this.agents = new Map();
    this.tasks = new Map();
    this.handler = new MessageHandler(this);
  }
  spawnAgent(id, command, args) {
    const a = new LocalRuntime(this, id, command, args);
    this.agents.set(id, a);
    return a;
  }
  submitTask(task, agent) {
    this.tasks.set(task.id, { ...task, status: "assigned", agentId: agent.info.id, createdAt: now() });
    agent.info.status = "busy";
    agent.send({ type: "task_notification", taskId: task.id, message: `Task ${task.id} assigned. Use TaskList and TaskGet to view details.` });
  }
  stop() {
    for (const a of this.agents.values()) {
      try {
        a.proc.kill("SIGTERM");
      } catch {}
    }
  }
}

// The launcher.
const spec = JSON.parse(readFileSync(process.env.AOPKIT_TASK, "utf8"));
const orch = new Orchestrator();
const agent = orch.spawnAgent("worker-1", process.env.AOPKIT_AGENT, ["--print", "--output-format=json", "Work on the assigned task"]);
// Other agents' tasks the scenario seeds (orchestrator.tasks): into the store.
for (const t of (spec.orchestrator && spec.orchestrator.tasks) || []) orch.tasks.set(t.id, { ...t, agentId: t.assignedTo, createdAt: now() });
orch.submitTask({ ...(spec.task || {}), id: spec.taskId }, agent);
process.on("SIGTERM", () => {
  orch.stop();
  process.exit(0);
});
setInterval(() => {}, 1 << 30); // a daemon
