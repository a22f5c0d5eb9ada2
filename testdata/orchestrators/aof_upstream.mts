// aof_upstream.mts runs d0labs/aof's own scheduler, unmodified, under `aopconform run
// --side orchestrator --protocol aof`: AOF's FilesystemTaskStore over the seeded data
// directory, its scheduler poll(), its ProtocolRouter for the agent's stdout, and
// this file's GatewayAdapter (AOF's extension point for spawning agents), which
// starts $AOPKIT_AGENT with the aof binding's environment. AOF_SRC is a checkout of
// d0labs/aof's src/ with zod, yaml and write-file-atomic installed next to it; run
// with tsx (docs/orchestrator-side.md, "running AOF's scheduler").
//
// It exits 0 once the given task has left ready and in-progress and no agent runs,
// or on SIGTERM (the harness stops a scheduler that stays up).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const src = process.env.AOF_SRC;
if (!src) {
  console.error("aof_upstream: set AOF_SRC to d0labs/aof's src/ directory");
  process.exit(2);
}
const load = (p: string) => import(pathToFileURL(join(src, p)).href);
const { FilesystemTaskStore } = await load("store/task-store.ts");
const { EventLogger } = await load("events/logger.ts");
const { poll } = await load("dispatch/scheduler.ts");
const { ProtocolRouter, parseProtocolMessage } = await load("protocol/router.ts");

const given = JSON.parse(readFileSync(process.env.AOPKIT_TASK!, "utf8"));
const dataDir: string = given.dataDir;
const store = new FilesystemTaskStore(dataDir);
await store.init();
const logger = new EventLogger(join(dataDir, "events"));
const router = new ProtocolRouter({ store, logger });

const listed = await store.list();
console.error(`aof_upstream: the store lists ${listed.length} task(s): ${listed.map((t: any) => `${t.frontmatter.id} (${t.frontmatter.status}, routing.agent ${t.frontmatter.routing.agent})`).join(", ")}`);

const sessions = new Map<string, { child: ChildProcess; alive: boolean; done: Promise<void> }>();

const adapter = {
  async spawnSession(ctx: any) {
    const env = {
      ...process.env,
      AOP_PROTOCOL: "aof",
      AOF_DATA_DIR: ctx.projectRoot,
      AOF_TASK_ID: ctx.taskId,
      AOF_AGENT_ID: ctx.agent,
      AOF_TASK_FILE: ctx.taskPath,
      AOF_RUN_DIR: join(ctx.projectRoot, "state", "runs", ctx.taskId), // AOF's run artifacts
    };
    const child = spawn(process.env.AOPKIT_AGENT!, [], { env, stdio: ["ignore", "pipe", "inherit"], detached: true });
    const id = String(child.pid);
    console.error(`aof_upstream: dispatched ${ctx.taskId} to ${ctx.agent} (session ${id})`);
    let routed = Promise.resolve();
    createInterface({ input: child.stdout! }).on("line", (line) => {
      routed = routed.then(async () => {
        const envelope = parseProtocolMessage(line, logger);
        if (envelope) await router.route(envelope);
      });
    });
    const done = new Promise<void>((resolve) => {
      child.on("close", async (code) => {
        await routed;
        s.alive = false;
        console.error(`aof_upstream: session ${id} ended (exit ${code})`);
        if (code === 0) await router.handleSessionEnd();
        resolve();
      });
    });
    const s = { child, alive: true, done };
    sessions.set(id, s);
    return { success: true, sessionId: id };
  },
  async getSessionStatus(sessionId: string) {
    return { sessionId, alive: sessions.get(sessionId)?.alive ?? false };
  },
  async forceCompleteSession(sessionId: string) {
    const s = sessions.get(sessionId);
    if (s?.alive && s.child.pid) process.kill(-s.child.pid, "SIGTERM");
  },
};

// The scenario's heartbeat TTL goes where AOF takes one: SchedulerConfig.heartbeatTtlMs.
// (Its dispatcher still writes run_heartbeat.json with acquireLease's fixed 5 minutes.)
const config = { dataDir, dryRun: false, defaultLeaseTtlMs: 600_000, heartbeatTtlMs: given.heartbeatTtlMs, executor: adapter };

let stopping = false;
process.on("SIGTERM", () => { stopping = true; });
for (;;) {
  await poll(store, logger, config);
  await Promise.all([...sessions.values()].map((s) => (s.alive ? Promise.race([s.done, sleep(250)]) : null)));
  const t = await store.get(given.taskId);
  const running = [...sessions.values()].some((s) => s.alive);
  if (stopping || (!running && t && t.frontmatter.status !== "ready" && t.frontmatter.status !== "in-progress")) break;
  await sleep(250);
}
for (const s of sessions.values()) if (s.alive && s.child.pid) process.kill(-s.child.pid, "SIGTERM");
const t = await store.get(given.taskId);
console.error(`aof_upstream: ${given.taskId} is ${t?.frontmatter.status ?? "gone"}`);
process.exit(0);

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
