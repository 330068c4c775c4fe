/**
 * Responsiveness benchmark: while a large import or delete runs in the worker,
 * how fast does the browser-mode server answer another call, a read and a write? A real server
 * (electron/server/http-server.ts) on 127.0.0.1 over a temp database; every 50 ms one call is
 * POSTed over HTTP (keep-alive, one call at a time), in turn a read (`listSessions`) and a
 * write (`renameVariant` of a variant of a small session imported first: a write transaction
 * on the main thread's connection, which needs the write lock the worker holds while it
 * writes a chunk or a batch) during:
 *   idle     nothing running (the floor on this machine)
 *   import   a generated N-turn transcript imported by path (the desktop app's way:
 *            service.api.importPaths; browser mode refuses paths)
 *   upload   the same kind of transcript, smaller, uploaded as importText over HTTP (body
 *            streamed to a temp file, parsed and imported by the worker)
 *   delete   deleteSession of a generated M-turn session over HTTP (the mark), then the
 *            worker's batches
 * and prints each phase's worst and median latency, reads and writes apart (target: worst < 100 ms).
 *
 *   npx tsx bench/responsive.ts [--turns 1000000] [--delete-turns 100000] [--upload-turns 200000] [--json]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../electron/server/http-server.js';
import { writeTranscript } from './import.js';

export interface Latency {
  calls: number;
  medianMs: number;
  worstMs: number;
}

/** The read calls' figures at the top level (as before writes were measured), the writes' in `write`. */
export interface PhaseLatency extends Latency {
  /** Turns imported or deleted (0 for idle). */
  turns: number;
  seconds: number;
  write: Latency;
}

export interface ResponsiveBenchResult {
  idle: PhaseLatency;
  import: PhaseLatency;
  upload: PhaseLatency;
  delete: PhaseLatency & { deleteCallMs: number };
}

const POLL_MS = 50;

function post(server: RunningServer, agent: http.Agent, op: string, body: string | Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: `/api/${op}`, agent, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The write call of the poll: renames this variant (a write transaction on the server's own connection). */
interface WriteTarget {
  variantId: number;
}

interface PollRun {
  reads: number[];
  writes: number[];
  seconds: number;
}

/** Calls listSessions and renameVariant in turn, one every POLL_MS, until `work` settles; returns the latencies. */
async function pollDuring(server: RunningServer, target: WriteTarget, work: Promise<unknown>, minMs = 0): Promise<PollRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  const started = performance.now();
  void work.then(
    () => (done = true),
    () => (done = true),
  );
  const reads: number[] = [];
  const writes: number[] = [];
  let n = 0;
  try {
    while (!done || performance.now() - started < minMs) {
      const write = n++ % 2 === 1;
      const [op, body] = write ? ['renameVariant', JSON.stringify({ variantId: target.variantId, name: `renamed ${n}` })] : ['listSessions', '{}'];
      const t = performance.now();
      const res = await post(server, agent, op, body);
      if (res.status !== 200) throw new Error(`${op} answered ${res.status}: ${res.text.slice(0, 200)}`);
      const ms = performance.now() - t;
      (write ? writes : reads).push(ms);
      await new Promise((r) => setTimeout(r, Math.max(0, POLL_MS - ms)));
    }
    await work;
  } finally {
    agent.destroy();
  }
  return { reads, writes, seconds: (performance.now() - started) / 1000 };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

function latency(ms: readonly number[]): Latency {
  const sorted = [...ms].sort((a, b) => a - b);
  return { calls: sorted.length, medianMs: round1(sorted[Math.floor(sorted.length / 2)] ?? 0), worstMs: round1(sorted[sorted.length - 1] ?? 0) };
}

function summary(turns: number, run: PollRun): PhaseLatency {
  return { turns, seconds: round1(run.seconds), ...latency(run.reads), write: latency(run.writes) };
}

/**
 * Uploads `file` as importText's body from a child process, as a browser would: building and
 * sending a 70 MB body in this process would stall the very event loop being measured.
 */
function uploadFromChild(server: RunningServer, file: string): Promise<void> {
  const script = `
    const fs = require('node:fs'); const http = require('node:http');
    const body = JSON.stringify({ fileName: require('node:path').basename(process.env.FILE), text: fs.readFileSync(process.env.FILE, 'utf8') });
    const req = http.request({ host: '127.0.0.1', port: Number(process.env.PORT), method: 'POST', path: '/api/importText', headers: { authorization: 'Bearer ' + process.env.TOKEN, 'content-type': 'application/json' } }, (res) => {
      const parts = []; res.on('data', (c) => parts.push(c));
      res.on('end', () => { const text = Buffer.concat(parts).toString('utf8'); if (res.statusCode !== 200 || !JSON.parse(text).ok) { console.error(text.slice(0, 300)); process.exit(1); } });
    });
    req.end(body);`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, FILE: file, PORT: String(server.port), TOKEN: server.token }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`upload failed (${code}): ${stderr}`))));
  });
}

export async function benchResponsive(opts: { turns: number; deleteTurns: number; uploadTurns: number }): Promise<ResponsiveBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-responsive-'));
  const importFile = path.join(dir, `import-${opts.turns}.jsonl`);
  const uploadFile = path.join(dir, `upload-${opts.uploadTurns}.jsonl`);
  const deleteFile = path.join(dir, `delete-${opts.deleteTurns}.jsonl`);
  const seedFile = path.join(dir, 'seed-100.jsonl');
  writeTranscript(seedFile, 100, 3);
  writeTranscript(importFile, opts.turns, 42);
  writeTranscript(uploadFile, opts.uploadTurns, 11);
  writeTranscript(deleteFile, opts.deleteTurns, 7);
  const server = await startServer({ port: 0, dbPath: path.join(dir, 'studio.db'), rendererDir: dir, importDemo: false, maxBodyBytes: 1024 * 1024 * 1024 });
  try {
    const seed = (await server.service.api.importPaths({ paths: [seedFile] })).sessions[0].id;
    const target: WriteTarget = { variantId: (await server.service.api.saveVariant({ sessionId: seed, strategy: 'window', params: {} })).id };
    const idle = summary(0, await pollDuring(server, target, Promise.resolve(), 2000));

    const imported = pollDuring(server, target, server.service.api.importPaths({ paths: [importFile] }));
    const importPhase = summary(opts.turns, await imported);

    const uploadPhase = summary(opts.uploadTurns, await pollDuring(server, target, uploadFromChild(server, uploadFile)));

    const victim = (await server.service.api.importPaths({ paths: [deleteFile] })).sessions[0].id;
    const agent = new http.Agent({ keepAlive: true });
    const t = performance.now();
    const del = await post(server, agent, 'deleteSession', JSON.stringify({ sessionId: victim }));
    const deleteCallMs = Math.round((performance.now() - t) * 10) / 10;
    agent.destroy();
    if (!(JSON.parse(del.text) as { ok: boolean }).ok) throw new Error(`deleteSession failed: ${del.text}`);
    const deletePhase = summary(opts.deleteTurns, await pollDuring(server, target, server.service.tasks.whenDeletesDone()));
    return { idle, import: importPhase, upload: uploadPhase, delete: { ...deletePhase, deleteCallMs } };
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatResponsive(r: ResponsiveBenchResult): string[] {
  const figures = (l: Latency) => `${l.calls} calls, median ${l.medianMs} ms, worst ${l.worstMs} ms${l.worstMs >= 100 ? '  OVER 100 ms' : ''}`;
  const line = (name: string, p: PhaseLatency, extra = '') =>
    `  ${name.padEnd(7)} ${p.turns > 0 ? `${p.turns.toLocaleString('en-US')} turns in ${p.seconds} s` : `${p.seconds} s`}: reads ${figures(p)}; writes ${figures(p.write)}${extra}`;
  return [line('idle', r.idle), line('import', r.import), line('upload', r.upload), line('delete', r.delete, `; the deleteSession call itself ${r.delete.deleteCallMs} ms`)];
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const args = process.argv.slice(2);
  benchResponsive({ turns: Number(argValue(args, '--turns') ?? 1_000_000), deleteTurns: Number(argValue(args, '--delete-turns') ?? 100_000), uploadTurns: Number(argValue(args, '--upload-turns') ?? 200_000) })
    .then((r) => process.stdout.write(args.includes('--json') ? `${JSON.stringify({ responsive: r })}\n` : `listSessions and renameVariant in turn over HTTP every ${POLL_MS} ms while the worker works (target: worst < 100 ms)\n${formatResponsive(r).join('\n')}\n`))
    .catch((e: unknown) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exitCode = 1;
    });
}
