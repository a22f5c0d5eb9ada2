#!/usr/bin/env node
// A port of the message handling of forge's legacy orchestrator (vieko/forge at
// 2e72751, the upstream prototype of the orchmsg spec), written for aopkit from
// its documented behaviour (../shared/reference/README.md "upstream/orchmsg" and
// the upstream message samples there), with its deviations kept on purpose, so
// that `aopconform run --side orchestrator` can be shown to name each one:
//
//   - the assignment is {"type":"task_notification","taskId","message"}, not
//     notify:task-assigned                      -> orchmsg/orch/notify/task-assigned
//   - request:ask-user has no handler: INVALID_MESSAGE_TYPE
//                                              -> orchmsg/orch/resp/fits-request
//   - get-task of a task it does not hold (or of none): INTERNAL_ERROR
//     "Task not found: X", no own-task check   -> orchmsg/orch/errors/foreign-task,
//                                                 orchmsg/orch/errors/invalid-request
//   - the rate limit (100 messages per second) answers INTERNAL_ERROR
//     "Rate limit exceeded"                     (a rejection: lint's ORCH-RESP-003 info)
//   - stdout is parsed per chunk, not per line: a message split across chunks is
//     lost                                      (a correlation symptom when it happens)
//   - ids are bare UUIDs; query-agents ignores its status filter; no
//     notify:task-cancelled, no 30 s request timeout, no validation.
//   - it is a daemon: it never exits by itself, and never shuts its agent down
//     once the task is done (it stops it when it is stopped itself).
//
// Launcher pattern (docs/orchestrator-side.md "Running an existing orchestrator"):
// start the orchestrator, spawn one agent from $AOPKIT_AGENT with the host's own
// arguments, submit the task from $AOPKIT_TASK.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";

const RATE_LIMIT = 100;
// pino-like JSON logs on stdout, as forge writes them.
const log = (...a) => process.stdout.write(JSON.stringify({ level: 30, time: Date.now(), name: "forge", msg: a.join(" ") }) + "\n");
const now = () => new Date().toISOString();

class MessageHandler {
  constructor(orch) {
    this.orch = orch;
    this.handlers = new Map([
      ["request:get-task", (m) => this.getTask(m)],
      ["request:query-agents", () => ({ agents: [...this.orch.agents.values()].map((a) => a.info) })],
      ["request:query-tasks", () => ({ tasks: [...this.orch.tasks.values()] })],
      ["request:submit-task", (m) => this.submitTask(m)],
    ]);
    this.times = [];
  }
  rateLimited() {
    const t = Date.now();
    this.times = this.times.filter((x) => t - x < 1000);
    this.times.push(t);
    return this.times.length > RATE_LIMIT;
  }
  getTask(m) {
    const id = m.payload && m.payload.taskId;
    const task = this.orch.tasks.get(id);
    if (!task) throw new Error("Task not found: " + id);
    return { task };
  }
  submitTask(m) {
    const id = "task-" + randomUUID().slice(0, 8);
    const task = { id, name: (m.payload && m.payload.name) || "Task submitted via message protocol", status: "queued", createdAt: now() };
    this.orch.tasks.set(id, task);
    return { task };
  }
  handle(agent, msg) {
    if (this.rateLimited()) {
      if (msg.type.startsWith("request:")) agent.send({ type: "response:error", id: randomUUID(), correlationId: msg.id, timestamp: now(), error: { code: "INTERNAL_ERROR", message: "Rate limit exceeded" } });
      return;
    }
    if (msg.type.startsWith("event:")) {
      log("event", msg.type, JSON.stringify(msg.payload || {}));
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
  }
}

class LocalRuntime {
  constructor(orch, id, command, args) {
    this.info = { id, role: "worker", status: "idle" };
    this.proc = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, AOP_PROTOCOL: "orchmsg", ORCHMSG_AGENT_ID: id } });
    // Per chunk, not per line (the upstream's way): a line split across two
    // chunks is two broken pieces, both dropped.
    this.proc.stdout.on("data", (chunk) => {
      for (const piece of chunk.toString().split("\n")) {
        const s = piece.trim();
        if (!s.startsWith("{")) continue;
        let msg;
        try {
          msg = JSON.parse(s);
        } catch {
          continue;
        }
        if (msg && typeof msg.type === "string") orch.handler.handle(this, msg);
      }
    });
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
    this.tasks.set(task.id, task);
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
orch.submitTask({ ...(spec.task || {}), id: spec.taskId }, agent);
process.on("SIGTERM", () => {
  orch.stop();
  process.exit(0);
});
setInterval(() => {}, 1 << 30); // a daemon
