/**
 * Import benchmark: a generated OpenAI-chat JSONL transcript of N turns is
 * imported through the real importer (streamed reading, zod validation, real o200k
 * token counts, FTS, tool cycles) into a temp database, and compared with a raw
 * better-sqlite3 insert of the very same rows (turns + tool_cycles, prepared
 * statements, one transaction, same schema and FTS triggers) measured in the same run.
 *
 *   npx tsx bench/import.ts --turns 1000000 [--also 250000] [--json]
 *
 * The import runs in a child process so its peak RSS (getrusage maxrss) is the
 * import's own; comparing 250k with 1M turns shows whether memory stays flat.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/store/db.js';
import { importFiles } from '../electron/importers/import.js';

export interface ImportBenchResult {
  turns: number;
  /** Wall-clock import throughput. */
  turnsPerSecond: number;
  /** Raw-insert wall time / import wall time for the same rows (>= 0.5 is the target). */
  ratioToRawInsert: number;
  /**
   * The same ratio from CPU time (user + system of each phase only): on a shared machine
   * the wall-clock ratio of two phases run a minute apart also measures the neighbours'
   * load; when the two figures differ much, the machine was busy.
   */
  ratioCpuTime: number;
  /** Peak resident set size of the importing process, MB. */
  peakRssMb: number;
}

interface Timing {
  seconds: number;
  cpuSeconds: number;
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

const WORDS = (
  'the of and to in is that for it as was with be by on not this are or from at which but have an they were there would their we been has when who will more no if out so what up its about into than them can only other new some could time these two may then do first any now such like over even most made after also did many before must through back years where much way well down should because each just those people how too little state good very make world still own see work long get here between both life being under never day same another know while last might great old year off come since against go came right used take three ' +
  'function const return import export async await error value result config server client request response buffer stream parser module handler session token context summary cache index query schema table column record batch worker thread signal timeout retry limit offset cursor payload header status'
).split(' ');
const TOOLS = ['read_file', 'run_shell', 'search_code', 'apply_patch'];

/** Deterministic text: the same N always gives the same file. */
function makeRng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

function sentence(rng: () => number, min: number, max: number): string {
  const n = min + Math.floor(rng() * (max - min + 1));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = WORDS[Math.floor(rng() * WORDS.length)];
    out.push(rng() < 0.04 ? `${w}_${Math.floor(rng() * 1000)}` : w);
  }
  return out.join(' ');
}

/** Streams `turns` OpenAI chat messages as JSONL: system, then user / assistant+tool_call / tool / assistant cycles. */
export function writeTranscript(file: string, turns: number, seed = 42): void {
  const rng = makeRng(seed);
  const fd = fs.openSync(file, 'w');
  let batch: string[] = [];
  const flush = (): void => {
    if (batch.length > 0) fs.writeSync(fd, `${batch.join('\n')}\n`);
    batch = [];
  };
  try {
    for (let i = 0; i < turns; i++) {
      let msg: unknown;
      if (i === 0) msg = { role: 'system', content: `You are a coding agent. ${sentence(rng, 30, 60)}` };
      else {
        const call = `call_${Math.floor((i - 1) / 4)}`;
        switch ((i - 1) % 4) {
          case 0:
            msg = { role: 'user', content: sentence(rng, 10, 40) };
            break;
          case 1: {
            const name = TOOLS[Math.floor(rng() * TOOLS.length)];
            msg = { role: 'assistant', content: sentence(rng, 5, 15), tool_calls: [{ id: call, type: 'function', function: { name, arguments: JSON.stringify({ path: `src/${WORDS[Math.floor(rng() * WORDS.length)]}.ts`, query: sentence(rng, 2, 6) }) } }] };
            break;
          }
          case 2:
            msg = { role: 'tool', tool_call_id: call, content: `${sentence(rng, 20, 120)}\n${sentence(rng, 5, 20)}` };
            break;
          default:
            msg = { role: 'assistant', content: sentence(rng, 15, 60) };
        }
      }
      batch.push(JSON.stringify(msg));
      if (batch.length >= 2000) flush();
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
}

function rmDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** The import alone, in this process: seconds for importFiles and this process's peak RSS. */
type ImportRun = Timing & { peakRssMb: number; turns: number };

function importInThisProcess(file: string, dbFile: string): ImportRun {
  rmDb(dbFile);
  const db = openDatabase(dbFile);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const report = importFiles(db, [file]);
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = cpuSecondsSince(cpu);
  db.close();
  // getrusage maxrss is in kilobytes on Linux.
  return { seconds, cpuSeconds, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), turns: report.sessions[0]?.turns ?? 0 };
}

/** Runs the import in a child process (tsx loader) so peak RSS is the import's own. */
function importInChild(file: string, dbFile: string): ImportRun {
  const require = createRequire(import.meta.url);
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const self = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ['--import', tsx, self, '--child-import', file, dbFile], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  if (child.status !== 0) throw new Error(`import child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').pop()!) as ImportRun;
}

/**
 * The same rows the import wrote (read back from its database, untimed, in chunks)
 * inserted into a fresh database with plain prepared statements in one transaction.
 */
function rawInsert(importedDb: string, rawDbFile: string): Timing {
  rmDb(rawDbFile);
  const source = openDatabase(importedDb, { readonly: true });
  const raw = openDatabase(rawDbFile);
  let timed = 0;
  let cpuTimed = 0;
  const clock = <T>(f: () => T): T => {
    const cpu = process.cpuUsage();
    const t = performance.now();
    const r = f();
    timed += performance.now() - t;
    cpuTimed += cpuSecondsSince(cpu);
    return r;
  };
  const session = source.prepare('SELECT * FROM sessions ORDER BY id LIMIT 1').get() as Record<string, unknown>;
  const insertSession = raw.prepare('INSERT INTO sessions (id, title, format, source_file, source_hash, created_at, tokenizer) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insertTurn = raw.prepare('INSERT INTO turns (session_id, position, role, blocks, text, char_count, token_count, source_ids, timestamp, model, agent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insertCycle = raw.prepare('INSERT INTO tool_cycles (session_id, tool_use_id, tool_name, use_position, result_position, is_error) VALUES (?, ?, ?, ?, ?, ?)');
  const CHUNK = 50_000;
  clock(() => {
    raw.exec('BEGIN');
    insertSession.run(session.id, session.title, session.format, session.source_file, session.source_hash, session.created_at, session.tokenizer);
  });
  type TurnRow = [number, number, string, string, string, number, number, string, string | null, string | null, string | null];
  const turnPage = source.prepare('SELECT session_id, position, role, blocks, text, char_count, token_count, source_ids, timestamp, model, agent_id FROM turns WHERE id > ? ORDER BY id LIMIT ?').raw();
  const idOf = source.prepare('SELECT id FROM turns WHERE session_id = ? AND position = ?').pluck();
  for (let after = 0; ; ) {
    const rows = turnPage.all(after, CHUNK) as TurnRow[];
    if (rows.length === 0) break;
    clock(() => {
      for (const r of rows) insertTurn.run(...r);
    });
    const last = rows[rows.length - 1];
    after = idOf.get(last[0], last[1]) as number;
  }
  const cycles = source.prepare('SELECT session_id, tool_use_id, tool_name, use_position, result_position, is_error FROM tool_cycles ORDER BY id').raw().all() as unknown[][];
  clock(() => {
    for (const c of cycles) insertCycle.run(...c);
    raw.exec('COMMIT');
  });
  source.close();
  raw.close();
  return { seconds: timed / 1000, cpuSeconds: cpuTimed };
}

export async function benchImport(opts: { turns: number; dir?: string; keep?: boolean; inProcess?: boolean }): Promise<ImportBenchResult> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-import-'));
  const file = path.join(dir, `transcript-${opts.turns}.jsonl`);
  const importedDb = path.join(dir, 'import.db');
  const rawDb = path.join(dir, 'raw.db');
  try {
    writeTranscript(file, opts.turns);
    const imported = opts.inProcess ? importInThisProcess(file, importedDb) : importInChild(file, importedDb);
    if (imported.turns !== opts.turns) throw new Error(`imported ${imported.turns} turns, expected ${opts.turns}`);
    const raw = rawInsert(importedDb, rawDb);
    const round3 = (x: number): number => Math.round(x * 1000) / 1000;
    return {
      turns: opts.turns,
      turnsPerSecond: Math.round(opts.turns / imported.seconds),
      ratioToRawInsert: round3(raw.seconds / imported.seconds),
      ratioCpuTime: round3(raw.cpuSeconds / imported.cpuSeconds),
      peakRssMb: imported.peakRssMb,
    };
  } finally {
    if (!opts.keep && !opts.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args: string[]): Promise<void> {
  if (args[0] === '--child-import') {
    process.stdout.write(`${JSON.stringify(importInThisProcess(args[1], args[2]))}\n`);
    return;
  }
  const turns = Number(argValue(args, '--turns') ?? 1_000_000);
  const also = argValue(args, '--also');
  const results: ImportBenchResult[] = [];
  for (const n of also ? [Number(also), turns] : [turns]) {
    const r = await benchImport({ turns: n });
    results.push(r);
    if (!args.includes('--json')) {
      process.stderr.write(`import ${n.toLocaleString('en')} turns: ${r.turnsPerSecond.toLocaleString('en')} turns/s, ${r.ratioToRawInsert}x raw insert (wall clock; ${r.ratioCpuTime}x in CPU time), peak RSS ${r.peakRssMb} MB\n`);
    }
  }
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify({ import: results[results.length - 1], ...(results.length > 1 ? { importSmaller: results[0] } : {}) })}\n`);
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
