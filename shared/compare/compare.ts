/**
 * The comparison of 2–4 variants of one session beside the two baselines their replay
 * timelines carry (shared/replay/timeline.ts): totals, the per-call series aligned for an
 * overlay, and the contexts at one call side by side with their diff and the summaries of
 * the same span. Pure: the service (electron/services/compare.ts) reads the runs, the
 * turns and each column's messages at the call, and hands them here.
 */
import type { ReplayMessage, ReplayTimeline, ReplayTotals } from '../contract.js';
import type { Turn } from '../model/turn.js';
import { countFates, segmentsOf, sourceFates, turnFates, type FateSummary, type TurnFates } from './fates.js';
import { compareFacts, type FactsColumn } from './facts.js';
import type { ColumnContext, CompareColumn, CompareSeries, Comparison, ContextComparison, ContextDiffRow, ContextSummary, SameSpanGroup } from './types.js';

/** At most this many variants are compared at once (the window's columns). */
export const MAX_COMPARED_VARIANTS = 4;

/** A column's timeline, or null (not replayed, a one-shot pass). */
export interface ColumnTimeline {
  column: CompareColumn;
  timeline: ReplayTimeline | null;
}

/** The baselines are the same in every replay of a session: read them from the first. */
function baselineTimeline(columns: readonly ColumnTimeline[]): ReplayTimeline | null {
  return columns.find((c) => c.timeline !== null)?.timeline ?? null;
}

export function compareTotals(columns: readonly ColumnTimeline[]): Record<string, ReplayTotals | null> {
  const out: Record<string, ReplayTotals | null> = {};
  const base = baselineTimeline(columns);
  for (const c of columns) out[c.column.key] = c.timeline?.totals ?? null;
  out.none = base?.baselines.none.totals ?? null;
  out.source = base?.baselines.source.totals ?? null;
  return out;
}

/**
 * Per-call series by call index. Every replay of a session has the same calls (one per
 * assistant turn, shared/replay/live.ts `callsOf`); a timeline whose calls differ (the
 * session changed, it cannot: turns are immutable) is refused rather than misaligned.
 */
export function alignSeries(columns: readonly ColumnTimeline[]): CompareSeries | null {
  const base = baselineTimeline(columns);
  if (!base) return null;
  const position = base.calls.position;
  const n = position.length;
  const series: CompareSeries = { position, context: {}, costUsd: {}, firings: {} };
  for (const c of columns) {
    const t = c.timeline;
    if (t && (t.calls.position.length !== n || t.calls.position.some((p, k) => p !== position[k]))) throw new Error(`replay run ${t.runId} has other calls than run ${base.runId}: they are not replays of the same session`);
    series.context[c.column.key] = t ? t.calls.context : new Array<null>(n).fill(null);
    // A firing's summarizer cost lands at its call, as the Timeline panel draws it.
    const cost: Array<number | null> = t ? t.calls.costUsd.slice() : new Array<null>(n).fill(null);
    if (t) for (const e of t.events) if (e.call >= 0 && e.call < n) cost[e.call] = (cost[e.call] ?? 0) + e.costUsd;
    series.costUsd[c.column.key] = cost;
    series.firings[c.column.key] = t ? [...new Set(t.events.map((e) => e.call))] : [];
  }
  series.context.none = base.baselines.none.context;
  series.context.source = base.baselines.source.context;
  series.costUsd.none = new Array<null>(n).fill(null);
  series.costUsd.source = new Array<null>(n).fill(null);
  series.firings.none = [];
  series.firings.source = base.baselines.source.events.map((e) => e.call);
  return series;
}

/** One column's context at the call, as the service read it. */
export interface ColumnAtCall {
  key: string;
  contextTokens: number | null;
  /** The messages the column sends (buildReplay's); null for the baselines, which the comparison derives. */
  messages: readonly ReplayMessage[] | null;
  /** The summaries it may send, with text (its replay's summaries made by the call, or its pass's). */
  summaries: ReadonlyArray<FateSummary & Omit<ContextSummary, 'firstPosition' | 'lastPosition' | 'id'>>;
}

export interface ContextInput {
  call: number;
  position: number;
  /** The session's turns before the call: positions 0..position-1. */
  turns: readonly Pick<Turn, 'position' | 'role' | 'blocks' | 'tokenCount'>[];
  columns: readonly ColumnAtCall[];
  /** The source tool's compactions (for the `source` column), with their summaries. */
  external: ReadonlyArray<{ id: number; firstPosition: number; lastPosition: number; boundaryPosition: number; summaryText: string; summaryTokenCount: number; trigger: string }>;
  /** The two baselines' context at the call (from any timeline), when known. */
  baselineContext: { none: number | null; source: number | null };
}

function columnContext(key: string, f: TurnFates, contextTokens: number | null, viewTokens: number, messages: number, summaries: ContextSummary[]): ColumnContext {
  const used = new Set(f.summaryIds.filter((x): x is number => x !== null));
  return { key, contextTokens, viewTokens, messages, segments: segmentsOf(f.fates, f.summaryIds), counts: countFates(f.fates), summaries: summaries.filter((s) => used.has(s.id)).sort((a, b) => a.firstPosition - b.firstPosition) };
}

/** Rows over the union of every column's segment boundaries: within a row no column's fate changes. */
export function diffRows(columns: ReadonlyArray<{ fates: TurnFates }>, turnCount: number): ContextDiffRow[] {
  const rows: ContextDiffRow[] = [];
  for (let p = 0; p < turnCount; p++) {
    const fates = columns.map((c) => c.fates.fates[p]);
    const summaryIds = columns.map((c) => c.fates.summaryIds[p]);
    const last = rows[rows.length - 1];
    if (last && last.to === p - 1 && fates.every((x, i) => x === last.fates[i]) && summaryIds.every((x, i) => x === last.summaryIds[i])) {
      last.to = p;
      continue;
    }
    rows.push({ from: p, to: p, fates, summaryIds, same: fates.every((x) => x === fates[0]) });
  }
  return rows;
}

/**
 * Summaries of different columns covering overlapping turn ranges, grouped (transitively)
 * so each group is one span summarized several ways; only groups with two or more columns.
 */
export function sameSpanGroups(columns: readonly ColumnContext[]): SameSpanGroup[] {
  const all = columns.flatMap((c) => c.summaries.map((s) => ({ ...s, key: c.key }))).sort((a, b) => a.firstPosition - b.firstPosition || a.lastPosition - b.lastPosition);
  const groups: SameSpanGroup[] = [];
  for (const s of all) {
    const g = groups[groups.length - 1];
    if (g && s.firstPosition <= g.to) {
      g.summaries.push(s);
      g.to = Math.max(g.to, s.lastPosition);
    } else groups.push({ from: s.firstPosition, to: s.lastPosition, summaries: [s] });
  }
  return groups.filter((g) => new Set(g.summaries.map((s) => s.key)).size >= 2);
}

export function compareContexts(o: ContextInput): ContextComparison {
  const n = o.turns.length;
  const transcript = o.turns.reduce((a, t) => a + t.tokenCount, 0);
  const built: Array<{ ctx: ColumnContext; fates: TurnFates }> = [];
  const factColumns: FactsColumn[] = [];
  for (const c of o.columns) {
    const messages = c.messages ?? [];
    const f = turnFates(o.turns, messages, c.summaries);
    const summaries = c.summaries.map(({ id, kind, depth, firstPosition, lastPosition, tokens, text }) => ({ id, kind, depth, firstPosition, lastPosition, tokens, text }));
    built.push({ ctx: columnContext(c.key, f, c.contextTokens, messages.reduce((a, m) => a + m.tokens, 0), messages.length, summaries), fates: f });
    factColumns.push({ key: c.key, fates: f, sent: messages });
  }
  const noneFates: TurnFates = { fates: new Array(n).fill('verbatim'), summaryIds: new Array(n).fill(null) };
  built.push({ ctx: columnContext('none', noneFates, o.baselineContext.none, transcript, n, []), fates: noneFates });
  const src = sourceFates(n, o.position, o.external);
  const srcSummaries = o.external.map((x) => ({ id: x.id, kind: `source (${x.trigger})`, depth: 0, firstPosition: x.firstPosition, lastPosition: x.lastPosition, tokens: x.summaryTokenCount, text: x.summaryText }));
  // The source sends its summary in place of the turns it covers.
  const srcTokens = o.turns.reduce((a, t) => a + (src.fates[t.position] === 'verbatim' ? t.tokenCount : 0), 0) + srcSummaries.filter((s) => src.summaryIds.includes(s.id)).reduce((a, s) => a + s.tokens, 0);
  const srcMessages = src.fates.filter((f) => f === 'verbatim').length + new Set(src.summaryIds.filter((x) => x !== null)).size;
  built.push({ ctx: columnContext('source', src, o.baselineContext.source, srcTokens, srcMessages, srcSummaries), fates: src });
  // What the source sends: its summaries in place of the turns they cover, every other turn as recorded.
  const srcSent = [...o.turns.filter((t) => src.fates[t.position] === 'verbatim'), ...srcSummaries.filter((s) => src.summaryIds.includes(s.id)).map((s) => ({ blocks: [{ type: 'text' as const, text: s.text }] }))];
  factColumns.push({ key: 'source', fates: src, sent: srcSent });
  const columns = built.map((b) => b.ctx);
  return { call: o.call, position: o.position, columns, diff: diffRows(built, n), sameSpan: sameSpanGroups(columns), facts: compareFacts(o.turns, factColumns) };
}

/**
 * The call a comparison opens at when none is asked for: the source tool's first own
 * compaction (the point a strategy is best set beside it), else the first call any
 * variant fired at, else the last call.
 */
export function defaultCall(columns: readonly ColumnTimeline[]): number | null {
  const base = baselineTimeline(columns);
  if (!base) return null;
  const n = base.calls.position.length;
  const src = base.baselines.source.events.find((e) => e.call < n);
  if (src) return src.call;
  const fired = columns.flatMap((c) => c.timeline?.events.map((e) => e.call) ?? []);
  return fired.length > 0 ? Math.min(...fired) : n - 1;
}

export function assembleComparison(o: { sessionId: number; sessionTitle: string; columns: readonly ColumnTimeline[]; context: ContextComparison | null }): Comparison {
  const series = alignSeries(o.columns);
  const baselines: CompareColumn[] = [
    { key: 'none', kind: 'none', label: 'no compaction', variantId: null, runId: null, strategy: null, params: null, asOfCall: null, status: 'baseline' },
    { key: 'source', kind: 'source', label: "source's own compactions", variantId: null, runId: null, strategy: null, params: null, asOfCall: null, status: 'baseline' },
  ];
  return {
    sessionId: o.sessionId,
    sessionTitle: o.sessionTitle,
    columns: [...o.columns.map((c) => c.column), ...baselines],
    totals: compareTotals(o.columns),
    series,
    calls: series ? series.position.length : 0,
    context: o.context,
  };
}
