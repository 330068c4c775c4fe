/**
 * Pass benchmark: a full extractive `dag` pass (leaf chunks + condensation, through the
 * engine: cache, tier ladder, transaction, replay token accounting) over a generated
 * session of 100,000 turns, in a temporary SQLite file. Reports turns/s of the pass
 * alone (the import that builds the session is not timed).
 * `npx tsx bench/pass.ts [--turns N] [--json]` runs it alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/store/db.js';
import { importText } from '../electron/importers/import.js';
import { runCompaction } from '../electron/engine/engine.js';
import type { Summarizer } from '../shared/strategies/summarizer.js';
import { createExtractiveSummarizer as createBaselineSummarizer } from './baseline/extractive-2/extractive.js';

export interface PassBenchResult {
  turns: number;
  turnsPerSecond: number;
  passMs: number;
  sessionTokens: number;
  summarizerCalls: number;
  status: string;
  stats?: Record<string, unknown>;
  error?: string;
}

/**
 * A deterministic OpenAI-format transcript (JSONL, one message per line) of `turns`
 * messages: episodes of a user request, assistant tool calls with their results (now
 * and then an error), and an assistant answer, with paths, commands and identifiers
 * for the extractive summarizer to find.
 */
export function syntheticTranscriptJsonl(turns: number): string {
  let seed = 0x9e3779b9;
  const rand = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 0x100000000;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const verbs = ['fix', 'refactor', 'speed up', 'document', 'add tests for', 'rename'] as const;
  const lines: string[] = [JSON.stringify({ role: 'system', content: 'You are a careful coding agent working in the repository at /work/app.' })];
  let call = 0;
  let episode = 0;
  while (lines.length < turns) {
    const n = episode++;
    const file = `src/${pick(['store', 'compaction', 'cli', 'renderer', 'import'])}/module${n % 97}.ts`;
    lines.push(JSON.stringify({ role: 'user', content: `Please ${pick(verbs)} ${file}: the function handle${n % 13}Batch should cope with ${Math.floor(rand() * 5000)} items. TODO: keep the public API stable.` }));
    const calls = 1 + Math.floor(rand() * 4);
    for (let c = 0; c < calls && lines.length < turns; c++) {
      const id = `call_${call++}`;
      const command = rand() < 0.5 ? `npx vitest run test/node/module${n % 97}.test.ts` : `grep -n "handle${n % 13}Batch" -r src/`;
      lines.push(JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] }));
      const failed = rand() < 0.15;
      const body = failed
        ? `FAIL test/node/module${n % 97}.test.ts\nTypeError: Cannot read properties of undefined (reading 'length')\n    at handle${n % 13}Batch (${file}:${10 + Math.floor(rand() * 300)}:7)`
        : Array.from({ length: 2 + Math.floor(rand() * 8) }, (_, k) => `${file}:${k * 17 + 3}: const batch${k} = items.slice(${k * 100}, ${k * 100 + 100});`).join('\n');
      lines.push(JSON.stringify({ role: 'tool', tool_call_id: id, content: body }));
    }
    lines.push(JSON.stringify({ role: 'assistant', content: `Done: I decided to split handle${n % 13}Batch into chunks of 100 in ${file}. Next we need to update the README.` }));
  }
  return lines.slice(0, turns).join('\n');
}

export async function benchPass(opts: { turns: number; summarizer?: Summarizer }): Promise<PassBenchResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-pass-'));
  const db = openDatabase(path.join(dir, 'bench.db'));
  try {
    const report = importText(db, 'bench-pass.jsonl', syntheticTranscriptJsonl(opts.turns), { format: 'openai' });
    const session = report.sessions[0];
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const result = await runCompaction(db, { sessionId: session.id, strategy: 'dag', params: {}, force: true, summarizer: opts.summarizer });
    const passMs = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    lastCpuMs = (cpu.user + cpu.system) / 1000;
    const base = { turns: session.turns, passMs: Math.round(passMs), sessionTokens: session.tokens, summarizerCalls: Number(result.stats.summarizerCalls ?? 0), status: result.status };
    if (result.status !== 'completed') return { ...base, turnsPerSecond: 0, error: result.error ?? result.status, stats: result.stats };
    return { ...base, turnsPerSecond: Math.round(session.turns / (passMs / 1000)), stats: result.stats };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let lastCpuMs = 0;

export interface PassRatioResult {
  before: PassBenchResult & { cpuMs: number };
  after: PassBenchResult & { cpuMs: number };
  /** Today's pass time over the baseline's, wall clock and CPU time of this process. */
  ratio: number;
  cpuRatio: number;
}

/** The dag pass with the frozen extractive-2 summarizer (the fact-list one the hand-off replaced), then with today's, in one run. */
export async function benchPassRatio(opts: { turns: number }): Promise<PassRatioResult> {
  const before = { ...(await benchPass({ turns: opts.turns, summarizer: createBaselineSummarizer() })), cpuMs: 0 };
  before.cpuMs = Math.round(lastCpuMs);
  const after = { ...(await benchPass({ turns: opts.turns })), cpuMs: 0 };
  after.cpuMs = Math.round(lastCpuMs);
  return { before, after, ratio: Math.round((after.passMs / before.passMs) * 100) / 100, cpuRatio: Math.round((after.cpuMs / before.cpuMs) * 100) / 100 };
}

async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf('--turns');
  if (argv.includes('--ratio')) {
    const r = await benchPassRatio({ turns: i >= 0 ? Number(argv[i + 1]) : 100_000 });
    if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ pass: { dagRatio: r } })}\n`);
    else console.log(`dag pass over ${r.after.turns} turns: before (extractive-2) ${r.before.passMs} ms (CPU ${r.before.cpuMs} ms), after ${r.after.passMs} ms (CPU ${r.after.cpuMs} ms): ${r.ratio}× wall, ${r.cpuRatio}× CPU`);
    return;
  }
  const r = await benchPass({ turns: i >= 0 ? Number(argv[i + 1]) : 100_000 });
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ pass: { dag: r } })}\n`);
  else console.log(r.error ? `dag pass: ${r.status}: ${r.error}` : `dag pass over ${r.turns} turns (${r.sessionTokens} tokens): ${r.passMs} ms, ${r.turnsPerSecond} turns/s, ${r.summarizerCalls} summarizer calls`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
