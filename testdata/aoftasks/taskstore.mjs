// taskstore.mjs: a faithful port, without dependencies, of how d0labs/aof's task
// store lists tasks (github.com/d0labs/aof at 2700399ab99ea2f22b317bff0f5160c4ccb2256e):
//   src/store/task-store.ts   FilesystemTaskStore.list(): every tasks/<status>/*.md
//                             regular file of STATUS_DIRS, parsed; a file that
//                             fails to parse is skipped with "[TaskStore] Parse error"
//   src/store/task-parser.ts  parseTaskFile(): the "---" fences, YAML, TaskFrontmatter.parse
//   src/schemas/task.ts       TaskFrontmatter (zod): the checks below, unknown keys stripped
// The YAML reader covers the subset task files use (block mappings and lists,
// flow [] and {}, quoted and plain scalars as YAML 1.2's core schema reads them),
// where upstream uses the `yaml` package.
//
// usage: node taskstore.mjs DATA-DIR
// prints {"tasks": [{"id", "status", "agent"}], "errors": ["<file>: <why>"]} as JSON.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const STATUS_DIRS = ["backlog", "ready", "in-progress", "blocked", "review", "done", "cancelled", "deadletter"];
const PRIORITIES = ["critical", "high", "normal", "low"];
const TASK_ID = /^TASK-\d{4}-\d{2}-\d{2}-\d{3}(-\d{2})?$/;
// zod 3's z.string().datetime(): UTC "Z", any fraction of a second, no offset.
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function scalar(s) {
  if (s.startsWith('"')) return JSON.parse(s);
  if (s.startsWith("'")) return s.slice(1, -1).replaceAll("''", "'");
  if (s.startsWith("[") || s.startsWith("{")) {
    const inner = s.slice(1, -1).trim();
    const items = inner === "" ? [] : inner.split(",").map((x) => scalar(x.trim()));
    if (s.startsWith("[")) return items;
    if (items.length) throw new Error(`flow mapping not supported: ${s}`);
    return {};
  }
  if (s === "" || s === "~" || s === "null") return null;
  if (s === "true" || s === "false") return s === "true";
  if (/^[-+]?\d+$/.test(s)) return parseInt(s, 10);
  if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return parseFloat(s);
  return s;
}

// parseYaml reads block YAML into objects (lines: [{indent, text}]).
function parseYaml(text) {
  const lines = text
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
    .map((l) => ({ indent: l.length - l.trimStart().length, text: l.trim() }));
  let i = 0;
  function block(indent) {
    if (lines[i].text === "-" || lines[i].text.startsWith("- ")) {
      const out = [];
      while (i < lines.length && lines[i].indent === indent && (lines[i].text === "-" || lines[i].text.startsWith("- "))) {
        const item = lines[i].text.slice(1).trim();
        i++;
        if (item === "") out.push(i < lines.length && lines[i].indent > indent ? block(lines[i].indent) : null);
        else if (/^[^"'[{][^:]*: /.test(item) || /^[^"'[{][^:]*:$/.test(item)) {
          // "- key: value" opens a mapping whose other keys sit under the key.
          const inner = indent + 2;
          lines.splice(i, 0, { indent: inner, text: item });
          out.push(block(inner));
        } else out.push(scalar(item));
      }
      return out;
    }
    const out = {};
    while (i < lines.length && lines[i].indent === indent) {
      const m = /^("[^"]*"|'[^']*'|[^:]+):(?: (.*))?$/.exec(lines[i].text);
      if (!m) throw new Error(`not key: value: ${lines[i].text}`);
      const key = scalar(m[1].trim());
      const rest = (m[2] ?? "").trim();
      i++;
      if (rest === "") {
        const nested = i < lines.length && (lines[i].indent > indent || (lines[i].indent === indent && lines[i].text.startsWith("- ")));
        out[key] = nested ? block(lines[i].indent) : null;
      } else out[key] = scalar(rest);
    }
    if (i < lines.length && lines[i].indent > indent) throw new Error(`bad indentation: ${lines[i].text}`);
    return out;
  }
  return lines.length ? block(lines[0].indent) : null;
}

// TaskFrontmatter.parse: throws what zod would reject; returns the parsed object.
function taskFrontmatter(v) {
  const fail = (path, why) => {
    throw new Error(`${path}: ${why}`);
  };
  const str = (o, k, path, opts = {}) => {
    const x = o[k];
    if (x === undefined && opts.optional) return;
    if (typeof x !== "string") fail(path + k, "Expected string");
    if (opts.min && x.length < opts.min) fail(path + k, "String must contain at least 1 character(s)");
    if (opts.re && !opts.re.test(x)) fail(path + k, opts.why);
  };
  const obj = (x, path) => {
    if (x === null || typeof x !== "object" || Array.isArray(x)) fail(path, "Expected object");
  };
  if (v === null || typeof v !== "object" || Array.isArray(v)) fail("", "Expected object");
  if (v.schemaVersion !== 1) fail("schemaVersion", "Invalid literal value, expected 1");
  str(v, "id", "", { re: TASK_ID, why: "Invalid task id" });
  str(v, "project", "", { min: 1 });
  str(v, "title", "", { min: 1 });
  if (!STATUS_DIRS.includes(v.status)) fail("status", "Invalid enum value");
  if (v.priority !== undefined && !PRIORITIES.includes(v.priority)) fail("priority", "Invalid enum value");
  if (v.routing !== undefined) {
    obj(v.routing, "routing");
    for (const k of ["role", "team", "agent", "workflow"]) str(v.routing, k, "routing.", { optional: true });
    if (v.routing.tags !== undefined && (!Array.isArray(v.routing.tags) || v.routing.tags.some((t) => typeof t !== "string")))
      fail("routing.tags", "Expected array of strings");
  }
  if (v.lease !== undefined) {
    obj(v.lease, "lease");
    str(v.lease, "agent", "lease.");
    str(v.lease, "acquiredAt", "lease.", { re: DATETIME, why: "Invalid datetime" });
    str(v.lease, "expiresAt", "lease.", { re: DATETIME, why: "Invalid datetime" });
    const rc = v.lease.renewCount;
    if (rc !== undefined && !(Number.isInteger(rc) && rc >= 0)) fail("lease.renewCount", "Expected a nonnegative integer");
  }
  for (const k of ["createdAt", "updatedAt", "lastTransitionAt"]) str(v, k, "", { re: DATETIME, why: "Invalid datetime" });
  str(v, "createdBy", "");
  str(v, "parentId", "", { optional: true, re: TASK_ID, why: "Invalid task id" });
  if (v.dependsOn !== undefined && (!Array.isArray(v.dependsOn) || v.dependsOn.some((d) => typeof d !== "string" || !TASK_ID.test(d))))
    fail("dependsOn", "Expected array of task ids");
  for (const k of ["contentHash", "requiredRunbook", "testsFile"]) str(v, k, "", { optional: true });
  for (const k of ["instructionsRef", "guidanceRef"]) str(v, k, "", { optional: true, min: 1 });
  if (v.metadata !== undefined) obj(v.metadata, "metadata");
  return { ...v, priority: v.priority ?? "normal", routing: { tags: [], ...(v.routing ?? {}) }, metadata: v.metadata ?? {} };
}

function parseTaskFile(raw) {
  const lines = raw.split("\n");
  if (lines[0]?.trim() !== "---") throw new Error("Task file must start with YAML frontmatter (---)");
  const endIdx = lines.indexOf("---", 1);
  if (endIdx === -1) throw new Error("Unterminated YAML frontmatter (missing closing ---)");
  return taskFrontmatter(parseYaml(lines.slice(1, endIdx).join("\n")));
}

const dataDir = process.argv[2];
const tasks = [];
const errors = [];
for (const status of STATUS_DIRS) {
  let entries;
  try {
    entries = readdirSync(join(dataDir, "tasks", status));
  } catch {
    continue;
  }
  for (const entry of entries.sort()) {
    if (!entry.endsWith(".md")) continue;
    const filePath = join(dataDir, "tasks", status, entry);
    if (!statSync(filePath).isFile()) continue;
    try {
      const fm = parseTaskFile(readFileSync(filePath, "utf-8"));
      tasks.push({ id: fm.id, status: fm.status, agent: fm.lease?.agent ?? fm.routing.agent ?? null });
    } catch (err) {
      errors.push(`tasks/${status}/${entry}: ${err.message}`);
    }
  }
}
console.log(JSON.stringify({ tasks, errors }));
