/**
 * A sweep's rows as figures and as CSV, pure: the retention cells (kept/total and a %) made
 * from a summed ledger, and the CSV the CLI prints (`sweep --csv`): one column per grid
 * parameter, the run's figures of the sweep's kind, then kept/total/% per fact category and
 * over all of them, then the text-level score (kept/total/%). The --json rows carry the same values (SweepRow).
 */
import { FACT_CATEGORIES, type FactCategory } from '../facts/types.js';
import type { RetentionCell, SweepKind, SweepRow } from './types.js';

const pct = (kept: number, total: number): number | null => (total > 0 ? Math.round((kept / total) * 10000) / 100 : null);

/** Per category kept/total with a % (two decimals), and all categories together. */
export function retentionCells(sum: Record<FactCategory, { kept: number; total: number }> | null): { retention: Record<FactCategory, RetentionCell> | null; retentionPct: number | null } {
  if (sum === null) return { retention: null, retentionPct: null };
  const retention = {} as Record<FactCategory, RetentionCell>;
  let kept = 0;
  let total = 0;
  for (const c of FACT_CATEGORIES) {
    const r = sum[c] ?? { kept: 0, total: 0 };
    retention[c] = { kept: r.kept, total: r.total, pct: pct(r.kept, r.total) };
    kept += r.kept;
    total += r.total;
  }
  return { retention, retentionPct: pct(kept, total) };
}

/** The text-level score of the same ledgers as a row's cells: kept/total and a %; nulls when not measured. */
export function textRetentionCells(sum: { kept: number; total: number } | null): { textRetention: { kept: number; total: number } | null; textRetentionPct: number | null } {
  return sum === null ? { textRetention: null, textRetentionPct: null } : { textRetention: { kept: sum.kept, total: sum.total }, textRetentionPct: pct(sum.kept, sum.total) };
}

/** The x of the sweep chart and of its Pareto front: what the point costs. */
export function sweepCost(row: SweepRow): number | null {
  if (row.replay) return row.replay.costUsd + row.replay.summarizerCostUsd;
  if (row.pass) return row.pass.tokensAfter;
  return null;
}

/** The name of that x for a sweep's kind. */
export function sweepCostLabel(kind: SweepKind): string {
  return kind === 'replay' ? 'cost USD (model calls + summarizer)' : 'tokens the model sees after the pass';
}

const REPLAY_COLUMNS = ['model_calls', 'input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cost_usd', 'summarizer_cost_usd', 'peak_context', 'firings', 'summarizer_calls'] as const;
const PASS_COLUMNS = ['tokens_before', 'tokens_after', 'summaries', 'summarizer_calls', 'summarizer_cost_usd'] as const;

function csvCell(v: string | number | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV header for a sweep of these grid parameters and kind. */
export function sweepCsvHeader(paramNames: readonly string[], kind: SweepKind): string[] {
  return [
    'session',
    ...paramNames,
    'variant_id',
    'run_id',
    'status',
    ...(kind === 'replay' ? REPLAY_COLUMNS : PASS_COLUMNS),
    ...FACT_CATEGORIES.flatMap((c) => [`${c}_kept`, `${c}_total`, `${c}_pct`]),
    'retention_pct',
    // The text-level score beside it (shared/retention/text.ts).
    'text_kept',
    'text_total',
    'text_retention_pct',
  ];
}

/** The sweep as CSV text (header line first, '\n' line ends, one line per row). */
export function sweepCsv(paramNames: readonly string[], kind: SweepKind, rows: readonly SweepRow[]): string {
  const lines = [sweepCsvHeader(paramNames, kind).join(',')];
  for (const r of rows) {
    const figures: Array<number | null> =
      kind === 'replay'
        ? [r.replay?.modelCalls ?? null, r.replay?.inputTokens ?? null, r.replay?.cacheReadTokens ?? null, r.replay?.cacheWriteTokens ?? null, r.replay?.costUsd ?? null, r.replay?.summarizerCostUsd ?? null, r.replay?.peakContext ?? null, r.replay?.firings ?? null, r.replay?.summarizerCalls ?? null]
        : [r.pass?.tokensBefore ?? null, r.pass?.tokensAfter ?? null, r.pass?.summaries ?? null, r.pass?.summarizerCalls ?? null, r.pass?.summarizerCostUsd ?? null];
    const cells: Array<string | number | null> = [
      r.sessionId,
      ...paramNames.map((n) => r.params[n] ?? null),
      r.variantId,
      r.runId,
      r.status,
      ...figures,
      ...FACT_CATEGORIES.flatMap((c) => {
        const cell = r.retention?.[c];
        return cell ? [cell.kept, cell.total, cell.pct] : [null, null, null];
      }),
      r.retentionPct,
      r.textRetention?.kept ?? null,
      r.textRetention?.total ?? null,
      r.textRetentionPct,
    ];
    lines.push(cells.map(csvCell).join(','));
  }
  return `${lines.join('\n')}\n`;
}
