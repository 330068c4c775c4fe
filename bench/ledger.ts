/**
 * Ledger benchmark (goal: the ledger of a 20k-token leaf in ≤ 5 ms): the facts of a
 * leaf span of real turns (the spotter fixture, turns taken from turn 100 on until they hold
 * `leafTokens` tokens by the stored o200k counts) extracted and matched against that leaf's
 * extractive summary, as the store does when the summary is written. Reports the median and
 * p95 of extract + ledger, and the extraction alone, over `runs` warm runs.
 * `npx tsx bench/ledger.ts [--tokens N] [--json]` runs it alone.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import { openDatabase } from '../electron/store/db.js';
import { importFiles } from '../electron/importers/import.js';
import { listTurns } from '../electron/store/turns.js';
import { turnsToItems } from '../shared/model/items.js';
import { extractiveSummary } from '../shared/summarize/extractive.js';
import { extractFacts, ledgerOf } from '../shared/facts/index.js';

const SPOTTER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

/**
 * Where the leaf starts: from turn 100 the spotter session is ordinary work (edits,
 * compile and test runs, 67 turns to 20k tokens); its early turns are a few huge file
 * reads, whose content the ledger skips, and would flatter the figure.
 */
const LEAF_START = 100;

export interface LedgerBenchResult {
  leafTokens: number;
  leafChars: number;
  turns: number;
  facts: number;
  medianMs: number;
  p95Ms: number;
  extractMedianMs: number;
  /** CPU time of this process per run (median): steadier than wall time on a shared machine. */
  cpuMedianMs: number;
  /** Wall median / 5 ms. */
  ratioToGoal: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export function benchLedger(opts: { tokens?: number; runs?: number; from?: number } = {}): LedgerBenchResult {
  const leafTokens = opts.tokens ?? 20_000;
  const from = opts.from ?? LEAF_START;
  const runs = opts.runs ?? 200;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-ledger-'));
  try {
    const db = openDatabase(path.join(dir, 'b.sqlite'));
    const sid = importFiles(db, [SPOTTER]).sessions[0].id;
    const all = listTurns(db, sid);
    db.close();
    const turns = [];
    let tokens = 0;
    for (const t of all.slice(from)) {
      if (tokens >= leafTokens) break;
      turns.push(t);
      tokens += t.tokenCount;
    }
    const items = turnsToItems(turns);
    const summary = extractiveSummary({ purpose: 'leaf', items, targetTokens: 1200, tier: 'normal' });
    const total: number[] = [];
    const extract: number[] = [];
    const cpu: number[] = [];
    let facts = 0;
    for (let i = 0; i < runs; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const set = extractFacts(items);
      const t1 = performance.now();
      ledgerOf(set, summary);
      const t2 = performance.now();
      const c1 = process.cpuUsage(c0);
      cpu.push((c1.user + c1.system) / 1000);
      facts = set.facts.length;
      extract.push(t1 - t0);
      total.push(t2 - t0);
    }
    const medianMs = quantile(total, 0.5);
    return {
      leafTokens: tokens,
      leafChars: items.reduce((n, i) => n + i.text.length, 0),
      turns: turns.length,
      facts,
      medianMs: Math.round(medianMs * 1000) / 1000,
      p95Ms: Math.round(quantile(total, 0.95) * 1000) / 1000,
      extractMedianMs: Math.round(quantile(extract, 0.5) * 1000) / 1000,
      cpuMedianMs: Math.round(quantile(cpu, 0.5) * 1000) / 1000,
      ratioToGoal: Math.round((medianMs / 5) * 100) / 100,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--tokens');
  const fromAt = process.argv.indexOf('--from');
  const r = benchLedger({ tokens: at >= 0 ? Number(process.argv[at + 1]) : undefined, from: fromAt >= 0 ? Number(process.argv[fromAt + 1]) : undefined });
  process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify(r)}\n` : `${JSON.stringify(r, null, 2)}\n`);
}
