/**
 * Summary-quality benchmark (`npm run bench -- --only summary`): on every
 * fixture session whose source tool compacted it (the spotter fixture carries Claude
 * Code's own summary of turns 0–206 at turn 207), the summary that replaces the same span
 * as the dag pass builds it (leaves of ≤ 20,000 tokens at the default leaf target 1,200,
 * each chained to the previous leaf as its prior, condensed into one summary whose target
 * is the source tool's summary's token count) against the source tool's summary: real
 * o200k tokens and retention of paths, identifiers, numbers with units and exact commands,
 * measured with the loss ledger (shared/facts ledgerOf over the span's facts). The same
 * span summarized by the extractive summarizer as it was before it was built on facts
 * (bench/baseline/extractive-1.ts) is printed beside it.
 *
 * Goal: at no more tokens than the source tool's summary, at least 2× its retention in
 * every category. `npx tsx bench/summary.ts [--json] [--example]` runs it alone;
 * `--example` prints the three texts of the first session (docs/summaries.md).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../electron/store/db.js';
import { importFiles } from '../electron/importers/import.js';
import { listExternalCompactions, listTurns } from '../electron/store/turns.js';
import { listSessions } from '../electron/store/sessions.js';
import { countTokens } from '../electron/tokenizer.js';
import { turnsToItems, summaryToItem } from '../shared/summarize/items.js';
import { extractiveSummarize } from '../shared/summarize/extractive.js';
import { extractFacts, ledgerOf, type FactCategory, type FactSet } from '../shared/facts/index.js';
import type { SummarizeRequest } from '../shared/strategies/summarizer.js';
import type { Turn } from '../shared/model/turn.js';
import { baselineSummary } from './baseline/extractive-1.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures');
const LEAF_CHUNK_TOKENS = 20_000;
const LEAF_TARGET_TOKENS = 1_200;
export const BENCH_CATEGORIES = ['path', 'identifier', 'number', 'command'] as const satisfies readonly FactCategory[];

type Summarize = (req: SummarizeRequest) => { text: string; facts?: FactSet };

export interface SummaryRow {
  name: string;
  tokens: number;
  retention: Record<(typeof BENCH_CATEGORIES)[number], { kept: number; total: number; share: number }>;
}

export interface SummarySessionResult {
  session: string;
  span: [number, number];
  spanTokens: number;
  leaves: number;
  rows: SummaryRow[];
  /** New summary's share over the source tool's, per category (Infinity when the tool kept none). */
  ratioToSource: Record<string, number>;
  goalMet: boolean;
  texts: Record<string, string>;
}

/** Leaf chunks at turn boundaries of at most LEAF_CHUNK_TOKENS (a chunk holds at least one turn). */
function chunks(turns: readonly Turn[]): Turn[][] {
  const out: Turn[][] = [];
  let cur: Turn[] = [];
  let tokens = 0;
  for (const t of turns) {
    if (cur.length > 0 && tokens + t.tokenCount > LEAF_CHUNK_TOKENS) {
      out.push(cur);
      cur = [];
      tokens = 0;
    }
    cur.push(t);
    tokens += t.tokenCount;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** What the dag pass would put in place of the span: chained leaves, condensed to `target` tokens. */
export function replacingSummary(summarize: Summarize, turns: readonly Turn[], target: number): { text: string; leaves: number } {
  const leaves: Array<{ text: string; facts?: FactSet }> = [];
  let prior: string | null = null;
  for (const chunk of chunks(turns)) {
    const leaf = summarize({ purpose: 'leaf', items: turnsToItems(chunk), priorSummary: prior, targetTokens: LEAF_TARGET_TOKENS, tier: 'normal' });
    leaves.push(leaf);
    prior = leaf.text;
  }
  // One chunk: the leaf is what replaces the span, so it gets the target itself.
  if (leaves.length === 1) return { text: summarize({ purpose: 'leaf', items: turnsToItems(turns), targetTokens: Math.min(LEAF_TARGET_TOKENS, target), tier: 'normal' }).text, leaves: 1 };
  const condensed = summarize({ purpose: 'condensed', items: leaves.map((l) => summaryToItem(l.text, undefined, l.facts)), targetTokens: target, tier: 'normal' });
  return { text: condensed.text, leaves: leaves.length };
}

function row(name: string, span: FactSet, text: string): SummaryRow {
  const r = ledgerOf(span, text).retention;
  const retention = {} as SummaryRow['retention'];
  for (const c of BENCH_CATEGORIES) retention[c] = { ...r[c], share: r[c].total === 0 ? 0 : r[c].kept / r[c].total };
  return { name, tokens: countTokens(text, 'o200k_base'), retention };
}

export function benchSummary(): SummarySessionResult[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-summary-'));
  const db = openDatabase(path.join(dir, 'b.sqlite'));
  try {
    const files = fs.readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(?:jsonl|json)$/.test(f) && !f.endsWith('.meta.json')).map((f) => path.join(FIXTURES, f));
    importFiles(db, files);
    const out: SummarySessionResult[] = [];
    for (const s of listSessions(db)) {
      for (const cc of listExternalCompactions(db, s.id)) {
        if (!cc.summaryText) continue;
        const turns = listTurns(db, s.id, { from: cc.firstPosition, to: cc.lastPosition + 1 });
        const span = extractFacts(turnsToItems(turns));
        const target = countTokens(cc.summaryText, 'o200k_base');
        const after = replacingSummary((req) => extractiveSummarize(req, (t) => countTokens(t, 'o200k_base')), turns, target);
        const before = replacingSummary((req) => ({ text: baselineSummary(req) }), turns, target);
        const rows = [row('source tool', span, cc.summaryText), row('before (extractive-1)', span, before.text), row('after (extractive-2)', span, after.text)];
        const ratioToSource: Record<string, number> = {};
        let goalMet = rows[2].tokens <= rows[0].tokens;
        for (const c of BENCH_CATEGORIES) {
          const src = rows[0].retention[c].share;
          const mine = rows[2].retention[c].share;
          ratioToSource[c] = src === 0 ? (mine > 0 ? Infinity : 1) : Math.round((mine / src) * 100) / 100;
          // 2× the tool's share, or everything there was to keep.
          if (!(mine >= Math.min(1, 2 * src))) goalMet = false;
        }
        out.push({
          session: s.sourceFile ? path.basename(s.sourceFile) : s.title,
          span: [cc.firstPosition, cc.lastPosition],
          spanTokens: turns.reduce((n, t) => n + t.tokenCount, 0),
          leaves: after.leaves,
          rows,
          ratioToSource,
          goalMet,
          texts: { source: cc.summaryText, before: before.text, after: after.text },
        });
      }
    }
    return out;
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (x: { kept: number; total: number; share: number }) => `${(x.share * 100).toFixed(1)}% (${x.kept}/${x.total})`;

export function formatSummaryTable(results: readonly SummarySessionResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.session}: turns ${r.span[0]}–${r.span[1]} (${r.spanTokens} tokens, ${r.leaves} leaves)`);
    lines.push(`  ${'summary'.padEnd(24)}${'tokens'.padStart(8)}  ${BENCH_CATEGORIES.map((c) => c.padEnd(18)).join('')}`);
    for (const row of r.rows) lines.push(`  ${row.name.padEnd(24)}${String(row.tokens).padStart(8)}  ${BENCH_CATEGORIES.map((c) => pct(row.retention[c]).padEnd(18)).join('')}`);
    lines.push(`  after / source tool: ${BENCH_CATEGORIES.map((c) => `${c} ${r.ratioToSource[c] === Infinity ? '∞' : `${r.ratioToSource[c]}×`}`).join(' · ')} — goal (≤ its tokens, ≥ 2× each): ${r.goalMet ? 'met' : 'NOT met'}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = benchSummary();
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(results.map(({ texts: _t, ...r }) => r))}\n`);
  else console.log(formatSummaryTable(results));
  if (process.argv.includes('--example') && results[0]) for (const [k, v] of Object.entries(results[0].texts)) console.log(`\n===== ${k} =====\n${v}`);
}
