/**
 * Summary-quality benchmark (`npm run bench -- --only summary`): on every fixture session
 * whose source tool compacted it (the spotter fixture carries Claude Code's own summary of
 * turns 0–206 at turn 207; the Codex rollout one of turns 0–9), the summary that replaces the
 * same span as the dag pass builds it with fresh tail 0, cut at the source's compaction
 * (leaves of ≤ 20,000 tokens at the default leaf target 1,200, each chained to the previous
 * leaf as its prior, condensed into one summary whose target is the source tool's summary's
 * token count), against the source tool's summary, the frozen extractive-2 summarizer
 * (bench/baseline/extractive-2/) and two trivial baselines: the span's first and last 3,000
 * tokens. Each row: real o200k tokens; the probe score (test/probes/, graded by text
 * with shared/probes/grade.ts: 12 questions, 3 per kind); and the loss ledger's retention of
 * paths, identifiers, numbers with units and exact commands (shared/facts ledgerOf).
 *
 * Goals: at no more tokens than the source tool's summary, a probe score at least the source
 * tool's; the trivial baselines well below both (or the keys are too loose).
 * `npx tsx bench/summary.ts [--json] [--texts]` runs it alone; `--texts` prints every row's text.
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
import { itemsToSourceText, turnsToItems, summaryToItem } from '../shared/model/items.js';
import { extractiveSummarize } from '../shared/summarize/extractive.js';
import { extractFacts, ledgerOf, type FactCategory, type FactSet } from '../shared/facts/index.js';
import { gradeProbes, ProbeSetSchema, type ProbeKind, type ProbeSet } from '../shared/probes/grade.js';
import type { SummarizeRequest } from '../shared/strategies/summarizer.js';
import type { Turn } from '../shared/model/turn.js';
import { extractiveSummarize as baselineSummarize } from './baseline/extractive-2/extractive.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures');
const PROBES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/probes');
/** Size of the trivial baselines: the span's first and last this many tokens. */
export const TRIVIAL_TOKENS = 3_000;
const LEAF_CHUNK_TOKENS = 20_000;
const LEAF_TARGET_TOKENS = 1_200;
export const BENCH_CATEGORIES = ['path', 'identifier', 'number', 'command'] as const satisfies readonly FactCategory[];

type Summarize = (req: SummarizeRequest) => { text: string; facts?: FactSet };

export interface SummaryRow {
  name: string;
  tokens: number;
  /** Probe score (sum over 12 probes) and per kind; null when the session has no probe set. */
  probes: { score: number; max: number; byKind: Record<ProbeKind, number> } | null;
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
  /** At no more tokens than the source tool's summary, a probe score at least its score. */
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

function row(name: string, span: FactSet, text: string, probes: ProbeSet | null): SummaryRow {
  const r = ledgerOf(span, text).retention;
  const retention = {} as SummaryRow['retention'];
  for (const c of BENCH_CATEGORIES) retention[c] = { ...r[c], share: r[c].total === 0 ? 0 : r[c].kept / r[c].total };
  const g = probes ? gradeProbes(probes, text) : null;
  return { name, tokens: countTokens(text, 'o200k_base'), probes: g && { score: g.score, max: g.max, byKind: g.byKind }, retention };
}

/** The longest prefix (or suffix) of `text` within `tokens` o200k tokens, cut at a line (binary search on lines). */
export function trivialBaseline(text: string, tokens: number, end: 'first' | 'last'): string {
  const lines = text.split('\n');
  const take = (n: number) => (end === 'first' ? lines.slice(0, n) : lines.slice(lines.length - n)).join('\n');
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(take(mid), 'o200k_base') <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return take(lo);
}

/** The probe set written for a fixture session, if there is one. */
export function probeSetFor(session: string): ProbeSet | null {
  const file = path.join(PROBES, `${session.replace(/\.jsonl?$/, '')}.json`);
  return fs.existsSync(file) ? ProbeSetSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8'))) : null;
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
        const session = s.sourceFile ? path.basename(s.sourceFile) : s.title;
        const probes = probeSetFor(session);
        const o200k = (t: string) => countTokens(t, 'o200k_base');
        const after = replacingSummary((req) => extractiveSummarize(req, o200k), turns, target);
        const before = replacingSummary((req) => baselineSummarize(req, o200k), turns, target);
        const source = itemsToSourceText(turnsToItems(turns));
        const first = trivialBaseline(source, TRIVIAL_TOKENS, 'first');
        const last = trivialBaseline(source, TRIVIAL_TOKENS, 'last');
        const rows = [
          row('source tool', span, cc.summaryText, probes),
          row('app (extractive-3)', span, after.text, probes),
          row('before (extractive-2)', span, before.text, probes),
          row(`first ${TRIVIAL_TOKENS} tokens`, span, first, probes),
          row(`last ${TRIVIAL_TOKENS} tokens`, span, last, probes),
        ];
        const ratioToSource: Record<string, number> = {};
        for (const c of BENCH_CATEGORIES) {
          const src = rows[0].retention[c].share;
          const mine = rows[1].retention[c].share;
          ratioToSource[c] = src === 0 ? (mine > 0 ? Infinity : 1) : Math.round((mine / src) * 100) / 100;
        }
        const goalMet = rows[1].tokens <= rows[0].tokens && (rows[1].probes?.score ?? 0) >= (rows[0].probes?.score ?? 0);
        out.push({
          session,
          span: [cc.firstPosition, cc.lastPosition],
          spanTokens: turns.reduce((n, t) => n + t.tokenCount, 0),
          leaves: after.leaves,
          rows,
          ratioToSource,
          goalMet,
          texts: { source: cc.summaryText, app: after.text, before: before.text, first, last },
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
    lines.push(`  ${'summary'.padEnd(24)}${'tokens'.padStart(8)}  ${'probes'.padEnd(9)}${'rec/art/cont/dec'.padEnd(20)}${BENCH_CATEGORIES.map((c) => c.padEnd(18)).join('')}`);
    for (const row of r.rows) {
      const p = row.probes ? `${row.probes.score}/${row.probes.max}`.padEnd(9) + (['recall', 'artifact', 'continuation', 'decision'] as const).map((k) => row.probes!.byKind[k].toFixed(1)).join('/').padEnd(20) : '-'.padEnd(29);
      lines.push(`  ${row.name.padEnd(24)}${String(row.tokens).padStart(8)}  ${p}${BENCH_CATEGORIES.map((c) => pct(row.retention[c]).padEnd(18)).join('')}`);
    }
    lines.push(`  app / source tool (ledger share): ${BENCH_CATEGORIES.map((c) => `${c} ${r.ratioToSource[c] === Infinity ? '∞' : `${r.ratioToSource[c]}×`}`).join(' · ')} — goal (≤ its tokens, probes ≥ its score): ${r.goalMet ? 'met' : 'NOT met'}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = benchSummary();
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(results.map(({ texts: _t, ...r }) => r))}\n`);
  else console.log(formatSummaryTable(results));
  if (process.argv.includes('--texts')) for (const r of results) for (const [k, v] of Object.entries(r.texts)) console.log(`\n===== ${r.session}: ${k} =====\n${v}`);
}
