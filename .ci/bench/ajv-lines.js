#!/usr/bin/env node
// ajv-lines.js: validate every line of a JSON-lines transcript with ajv against
// aopkit's exported schemas. Schema validation only: the most a user could script
// with the best JavaScript JSON Schema library, the peer of `aoplint` in
// docs/benchmarks.md (issue 6).
//
//   node ajv-lines.js SCHEMA_DIR MAP_JSON TRANSCRIPT
//
// SCHEMA_DIR holds the schemas (<protocol>/<file>.json, each with its $id); every
// one is added to one Ajv instance, each is compiled once, on first use.
// MAP_JSON maps a message signature (see signature below; internal/cmd/aopbench/schemas.go
// computes the same) to the $id of the schema aoplint's detection picks for it.
// transcript/1 records are unwrapped ("msg"); "text" and harness "event" records,
// and lines that are no JSON, are counted and skipped. Prints a JSON summary.
'use strict';

const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

function signature(m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return '';
  const str = (v) => (typeof v === 'string' ? v : '');
  if ('aop_version' in m) {
    let s = 'aop2|' + str(m.message_type);
    if (str(m.message_type) === 'EVENT') s += '|' + str(m.event);
    return s;
  }
  if ('jsonrpc' in m) {
    if ('method' in m) return 'aos|request|' + str(m.method);
    if ('error' in m) return 'aos|error';
    const r = m.result;
    if (r !== null && typeof r === 'object' && !Array.isArray(r) && 'status' in r) return 'aos|ping-result';
    return 'aos|result';
  }
  if (m.protocol === 'aof') return 'aof|' + str(m.type);
  if (typeof m.type === 'string') return 'orchmsg|' + m.type;
  return '';
}

function main() {
  const [schemaDir, mapFile, transcript] = process.argv.slice(2);
  if (!transcript) {
    process.stderr.write('usage: node ajv-lines.js SCHEMA_DIR MAP_JSON TRANSCRIPT\n');
    process.exit(2);
  }
  const started = process.hrtime.bigint();
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  for (const dir of fs.readdirSync(schemaDir).sort()) {
    const full = path.join(schemaDir, dir);
    if (!fs.statSync(full).isDirectory()) continue;
    for (const f of fs.readdirSync(full).sort()) {
      if (f.endsWith('.json')) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(full, f), 'utf8')));
    }
  }
  const map = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
  const validators = new Map();
  const validatorFor = (sig) => {
    if (!validators.has(sig)) validators.set(sig, map[sig] ? ajv.getSchema(map[sig]) : null);
    return validators.get(sig);
  };

  const counts = { lines: 0, valid: 0, invalid: 0, errors: 0, notJSON: 0, skipped: 0, unknown: 0, bytes: 0 };
  const check = (line) => {
    counts.lines++;
    if (line.startsWith('AOF/1 ')) line = line.slice(6);
    let m;
    try {
      m = JSON.parse(line);
    } catch (e) {
      counts.notJSON++;
      return;
    }
    if (m !== null && typeof m === 'object' && 'aopkit' in m) {
      if (!('msg' in m)) {
        counts.skipped++;
        return;
      }
      m = m.msg;
    }
    const v = validatorFor(signature(m));
    if (!v) {
      counts.unknown++;
      return;
    }
    if (v(m)) {
      counts.valid++;
    } else {
      counts.invalid++;
      counts.errors += v.errors.length;
    }
  };

  const fd = fs.openSync(transcript, 'r');
  const chunk = Buffer.allocUnsafe(4 << 20);
  let rest = Buffer.alloc(0);
  for (;;) {
    const n = fs.readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    counts.bytes += n;
    let buf = rest.length ? Buffer.concat([rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      let end = nl;
      if (end > start && buf[end - 1] === 13) end--;
      if (end > start) check(buf.toString('utf8', start, end));
      start = nl + 1;
    }
    rest = Buffer.from(buf.subarray(start));
  }
  if (rest.length) check(rest.toString('utf8'));
  fs.closeSync(fd);
  counts.seconds = Number(process.hrtime.bigint() - started) / 1e9;
  counts.ajv = require('ajv/package.json').version;
  process.stdout.write(JSON.stringify(counts) + '\n');
}

main();
