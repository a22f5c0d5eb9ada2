#!/usr/bin/env node
// aop2 executor in plain Node.js (no npm packages), written from README.md,
// docs/bindings.md ("Common to every protocol", "Node.js", "aop2") and the
// AOP JSON v2 contract (Cyclops 2.0.2-C) alone, as an outsider would.
//
// Run:   aopconform run --protocol aop2 -- node testdata/agents/aop2.mjs [MODE]
//
// Modes a correct agent may take (aopconform must exit 0):
//   correct   (default) heartbeats on a timer, one PROGRESS_UPDATE, ~1.5 s of
//             asynchronous work, writes the expected outputs and a result file
//             in the workspace, a full RESPONSE with output_artifacts
//   fast      answers as soon as it has read the TASK (no heartbeat timer)
// Buggy modes (each must make aopconform exit 1, failing the named check):
//   bug-heartbeat-stops  arms its heartbeat with setTimeout instead of
//                        setInterval: two beats, then silence while it works
//                        3.5 s (aop2/6.1/heartbeat-liveness)
//   bug-no-agent         RESPONSE without its required `agent` block
//                        (aop2/5/final-response)
//   bug-wrong-task-id    RESPONSE answers another task_id: a wrong
//                        correlation (aop2/1.2/response-ids; in
//                        aop2-stale-recovery aop2/recovery/clean-restart is
//                        NOT-JUDGED under it)
//   bug-exit-one         a correct RESPONSE, then exit 1 (aop2/bind/exit-zero;
//                        in aop2-stale-recovery aop2/recovery/clean-restart is
//                        NOT-JUDGED under it)
// Each bug shows as one FAILURES block.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { createInterface } from "node:readline";

// First thing: on SIGTERM exit at once; no RESPONSE is owed.
process.on("SIGTERM", () => process.exit(0));

const MODES = ["correct", "fast", "bug-heartbeat-stops", "bug-no-agent", "bug-wrong-task-id", "bug-exit-one"];
const mode = process.argv[2] ?? "correct";
if (!MODES.includes(mode)) {
  console.error(`aop2.mjs: unknown mode ${mode} (one of ${MODES.join(", ")})`);
  process.exit(2);
}

const log = (...a) => console.error("[aop2.mjs]", ...a); // stdout is the protocol's
const AGENT_NAME = "node-outsider";
const startedAt = new Date();

let task = null; // the TASK envelope, once read
let responded = false;
let heartbeat = null; // the interval timer
let workTimer = null;

// One write per message: a whole line, never two half lines.
function emit(msg) {
  return new Promise((res) => process.stdout.write(JSON.stringify(msg) + "\n", res));
}

function event(name, fields = {}) {
  return emit({
    aop_version: "2.0.2-C",
    message_type: "EVENT",
    event: name,
    session_id: task.session?.session_id ?? "AOP-SESSION-UNKNOWN",
    task_id: task.task?.task_id,
    timestamp: new Date().toISOString(),
    agent: AGENT_NAME,
    ...fields,
  });
}

let progress = 0;
function startHeartbeats() {
  const hb = task.execution_policy?.heartbeat;
  if (!hb?.enabled) return;
  const interval = Number(hb.interval_seconds) > 0 ? Number(hb.interval_seconds) : 120;
  // Beat at once, then every half interval (docs/bindings.md, aop2).
  event("HEARTBEAT", { progress_percentage: progress });
  // BUG (bug-heartbeat-stops): setTimeout fires once, the beats stop.
  const every = mode === "bug-heartbeat-stops" ? setTimeout : setInterval;
  heartbeat = every(() => {
    if (!responded) event("HEARTBEAT", { progress_percentage: progress });
  }, (interval * 1000) / 2);
}

function stopHeartbeats() {
  if (heartbeat) clearTimeout(heartbeat); // clears an interval too
  heartbeat = null;
}

// The workspace: AOP2_WORKSPACE, else the TASK's workspace_root.
function workspace() {
  return process.env.AOP2_WORKSPACE || task.task?.environment?.workspace_root || process.cwd();
}

function inside(dir, p) {
  const r = relative(dir, p);
  return r !== "" && !r.startsWith("..") && !isAbsolute(r);
}

// Write a file atomically (temporary file, then rename) and describe it.
function produce(path, content) {
  const existed = existsSync(path);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
  const bytes = readFileSync(path);
  return {
    type: "FILE",
    path,
    hash: "sha256:" + createHash("sha256").update(bytes).digest("hex"),
    status: existed ? "UPDATED" : "CREATED",
    size_bytes: bytes.length,
  };
}

// The "work": write what the TASK expects, inside the workspace only, never
// over an orchestrator-owned rollback snapshot (§7).
function doWork() {
  const ws = workspace();
  const t = task.task ?? {};
  const snapshots = new Set(
    (t.expected_outputs ?? [])
      .map((o) => o?.rollback_snapshot?.snapshot_path)
      .filter((p) => typeof p === "string")
      .map((p) => resolve(ws, p)),
  );
  const artifacts = [];
  const actions = [`Read TASK ${t.task_id} (attempt ${t.attempt ?? 1}).`];
  for (const out of t.expected_outputs ?? []) {
    if (out?.type !== "FILE" || typeof out.path !== "string") continue;
    const p = resolve(ws, out.path);
    if (!inside(ws, p) || snapshots.has(p)) {
      actions.push(`Skipped ${out.path}: outside the workspace.`);
      continue;
    }
    artifacts.push(produce(p, `${out.description ?? "output"}\nwritten by ${AGENT_NAME} for ${t.task_id}\n`));
    actions.push(`Wrote ${out.path}.`);
  }
  const result = resolve(ws, `${AGENT_NAME}-result.txt`);
  if (!snapshots.has(result)) {
    artifacts.push(produce(result, `objective: ${t.objective ?? ""}\nresult: done\n`));
    actions.push(`Wrote ${result}.`);
  }
  return { artifacts, actions };
}

async function respond() {
  if (responded) return;
  responded = true;
  stopHeartbeats();
  let work;
  try {
    work = doWork();
  } catch (err) {
    log("work failed:", err);
    work = { artifacts: [], actions: [`Failed: ${err.message}`], error: err };
  }
  const t = task.task ?? {};
  const attempt = Number.isInteger(t.attempt) && t.attempt > 0 ? t.attempt : 1;
  const budget = t.budgets?.max_cost_usd ?? t.constraints?.max_cost_usd;
  const cost = typeof budget === "number" ? Math.min(0.01, budget) : 0.01;
  const completed = new Date();
  const ok = !work.error;
  const response = {
    aop_version: "2.0.2-C",
    schema_version: "2.0.2",
    protocol_family: "AOP",
    message_type: "RESPONSE",
    session_id: task.session?.session_id,
    task_id: mode === "bug-wrong-task-id" ? `${t.task_id}-OTHER` : t.task_id,
    agent: {
      name: AGENT_NAME,
      provider: task.target?.provider,
      model: task.target?.model,
    },
    task_status: ok
      ? { state: "COMPLETED", final_signal: "SUCCESS", message: "Task completed." }
      : { state: "FAILED", final_signal: "FAILURE", message: String(work.error.message) },
    execution_summary: {
      summary: `Worked on: ${t.objective ?? t.task_id}`.slice(0, 2000),
      actions: work.actions,
      output_artifacts: work.artifacts,
      warnings: [],
      errors: ok ? [] : [String(work.error.message)],
      extensions: { x_runtime: `node ${process.version}` },
    },
    error_details: null,
    timing: {
      started_at: startedAt.toISOString(),
      completed_at: completed.toISOString(),
      duration_seconds: Math.round((completed - startedAt) / 1000),
      retries_attempted: attempt - 1,
    },
    cost_tracking: {
      estimated_cost_usd: cost,
      actual_cost_usd: cost,
      tokens_input: 0,
      tokens_output: 0,
    },
    progress_log: { last_progress_event_at: completed.toISOString(), progress_percentage: 100 },
  };
  if (mode === "bug-no-agent") delete response.agent;
  // Exit once the line is written: process.exit() right after write() could
  // drop it (stdout to a pipe is asynchronous).
  // BUG (bug-exit-one): exit 1 after a correct RESPONSE.
  process.stdout.write(JSON.stringify(response) + "\n", () => process.exit(mode === "bug-exit-one" ? 1 : 0));
}

function onTask(line) {
  try {
    task = JSON.parse(line);
  } catch (err) {
    log("stdin is not a JSON TASK:", err.message);
    process.exit(1);
  }
  if (task?.message_type !== "TASK") {
    log("expected a TASK, got", task?.message_type);
    process.exit(1);
  }
  log(`task ${task.task?.task_id} attempt ${task.task?.attempt ?? 1} as ${task.target?.provider}/${task.target?.model}`);
  if (mode === "fast") {
    respond();
    return;
  }
  startHeartbeats();
  // One PROGRESS_UPDATE (at most one per 30 s, so one per run here).
  progress = 10;
  event("PROGRESS_UPDATE", { progress: { percentage: 10, message: "Started" } });
  // Work time: 1.5 s (bug-heartbeat-stops: 3.5 s, longer than the beats it
  // sends), but never more than a quarter of the effective timeout.
  const timeout = task.guard_rails?.timeout_seconds ?? task.execution_policy?.timeout_seconds;
  let ms = mode === "bug-heartbeat-stops" ? 3500 : 1500;
  if (typeof timeout === "number" && timeout > 0) ms = Math.min(ms, (timeout * 1000) / 4);
  const step = ms / 4;
  const tick = () => {
    progress = Math.min(90, progress + 20);
    if (progress >= 90) respond();
    else workTimer = setTimeout(tick, step);
  };
  workTimer = setTimeout(tick, step);
}

const rl = createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  if (task === null) {
    if (line.trim() !== "") onTask(line);
  } else {
    log("ignoring extra stdin line");
  }
});
// EOF on stdin: the orchestrator is gone. Stop (no RESPONSE owed); if the
// RESPONSE is being written, its write callback exits.
rl.on("close", () => {
  if (responded) return;
  log("stdin closed: the orchestrator is gone, stopping");
  stopHeartbeats();
  clearTimeout(workTimer);
  process.exitCode = 0;
  process.stdin.destroy();
});
