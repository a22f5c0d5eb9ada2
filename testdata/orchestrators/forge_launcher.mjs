// forge_launcher.mjs: run forge's legacy Orchestrator (vieko/forge at 2e72751,
// src/core/orchestrator.ts), unmodified, under aopconform. Not run by the tests
// (they fetch nothing; TestForgePort runs a port of forge's message handling).
// By hand, from a checkout of forge with its dependencies and tsx installed:
//
//   git --git-dir=<forge.git> archive 2e72751 | tar -x -C /tmp/forge && cd /tmp/forge
//   npm install --ignore-scripts commander@12 zod@3 dotenv@16 pino@8 pino-pretty@10 eventemitter3@5 tsx@4
//   cp <aopkit>/testdata/orchestrators/forge_launcher.mjs /tmp/forge/launcher.mjs
//   mkdir -p /tmp/forge-workspaces    # forge's fixed workspace root
//   aopconform run --side orchestrator --protocol orchmsg --allow-write /tmp/forge-workspaces \
//     -- /tmp/forge/node_modules/.bin/tsx /tmp/forge/launcher.mjs
//
// forge runs its agents as $CLAUDE_CODE_PATH with its own arguments (--print
// --output-format=json PROMPT); aopconform's agent takes any. Its config wants an
// API key it never uses here. It stays up: aopconform stops it once the task is
// decided.
import { readFileSync } from "node:fs";
process.env.CLAUDE_CODE_PATH = process.env.AOPKIT_AGENT;
process.env.ANTHROPIC_API_KEY ??= "unused";
const { Orchestrator } = await import("./src/core/orchestrator.ts");
const t = JSON.parse(readFileSync(process.env.AOPKIT_TASK, "utf8"));
const orch = new Orchestrator();
await orch.start();
await orch.spawnAgent({ id: "worker-1", runtime: "local", role: "worker", claudeConfig: {} });
await orch.submitTask({ id: t.taskId, type: "task", name: t.task?.name ?? "aopconform", payload: t.task ?? {}, requiredRole: "worker" });
