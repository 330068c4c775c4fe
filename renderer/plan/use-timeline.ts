/**
 * The Timeline panel's data: the real replay of the current variant when the window has
 * one for exactly these parameters (getReplayRun), else the PROJECTED timeline computed
 * in the window with the shared live loop (projectTimeline: summaries of their target
 * size, no summarizer call), recomputed when a slider settles for a frame or two.
 * Both end up in one shape, so the chart does not care which it draws.
 */
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import type { ReplayTimeline, ReplayTotals, RunStatus, SessionUsage } from '../../shared/contract.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { callsOf, type ContextModel, type LiveResult } from '../../shared/replay/live.js';
import { prepareStrategy, STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { DEFAULT_OVERHEAD_TOKENS } from '../../shared/usage/overhead.js';
import { reportedContext } from '../../shared/usage/types.js';
import { useReplayRun, useSessionUsage } from '../api/queries.js';
import { useDebounced } from '../hooks/use-debounced.js';
import { useStudio } from '../state/store.js';
import type { Workbench } from './use-workbench.js';

export interface TimelineEvent {
  call: number;
  position: number;
  kind: 'fire' | 'commit';
  reason: string;
  contextBefore: number;
  contextAfter: number;
  summaries: number;
  maxDepth: number;
  costUsd: number | null;
}

export interface TimelineTotalsRow {
  id: 'variant' | 'none' | 'source';
  label: string;
  modelCalls: number;
  costUsd: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  firings: number | null;
  maxDepth: number | null;
  peakContext: number | null;
}

export interface TimelineView {
  kind: 'projected' | 'replay';
  runId: number | null;
  status: RunStatus | null;
  calls: number;
  position: number[];
  context: number[];
  /** No compaction: the whole transcript (with overhead) at every call. */
  none: number[];
  /** The source's own recorded context where present. */
  recorded: Array<number | null>;
  cacheRead: number[] | null;
  cacheWrite: number[] | null;
  costUsd: number[] | null;
  cumulativeCost: number[] | null;
  fired: boolean[];
  events: TimelineEvent[];
  lines: Array<{ label: string; tokens: number }>;
  note: string | null;
  contextModel: { a: number; b: number; source: string };
  totals: TimelineTotalsRow[];
  contextWindow: number | null;
  overflowAtCall: number | null;
  pricing: ReplayTimeline['pricing'] | null;
}

function totalsRow(id: TimelineTotalsRow['id'], label: string, t: ReplayTotals): TimelineTotalsRow {
  return { id, label, modelCalls: t.modelCalls, costUsd: t.costUsd + t.summarizerCostUsd, cacheRead: t.cacheReadTokens, cacheWrite: t.cacheWriteTokens, firings: t.firings, maxDepth: t.maxDepth, peakContext: t.peakContext };
}

function cumulative(xs: readonly number[]): number[] {
  const out = new Array<number>(xs.length);
  let sum = 0;
  for (let i = 0; i < xs.length; i++) out[i] = sum += xs[i];
  return out;
}

export function fromReplay(t: ReplayTimeline): TimelineView {
  const c = t.calls;
  const n = c.context.length;
  // Summarizer cost lands at the call of its firing.
  const cost = c.costUsd.slice();
  for (const e of t.events) if (e.call >= 0 && e.call < n) cost[e.call] += e.costUsd;
  return {
    kind: 'replay',
    runId: t.runId,
    status: t.status,
    calls: n,
    position: c.position,
    context: c.context,
    none: t.baselines.none.context,
    recorded: t.baselines.source.context,
    cacheRead: c.cacheRead,
    cacheWrite: c.cacheWrite,
    costUsd: cost,
    cumulativeCost: cumulative(cost),
    fired: c.fired,
    events: t.events.map((e) => ({ call: e.call, position: e.turn, kind: e.kind, reason: e.reason, contextBefore: e.contextBefore, contextAfter: e.contextAfter, summaries: e.summaryIds.length, maxDepth: e.maxDepth, costUsd: e.costUsd })),
    lines: t.lines,
    note: t.note,
    contextModel: t.contextModel,
    totals: [totalsRow('variant', t.strategy, t.totals), totalsRow('none', 'no compaction', t.baselines.none.totals), totalsRow('source', "source's own", t.baselines.source.totals)],
    contextWindow: t.baselines.none.contextWindow,
    overflowAtCall: t.baselines.none.overflowAtCall,
    pricing: t.pricing,
  };
}

function fromProjection(strategy: StrategyName, params: Record<string, number>, r: LiveResult, usage: SessionUsage | undefined, model: ContextModel & { source: string }): TimelineView {
  const n = r.calls.length;
  const byPosition = new Map<number, number | null>();
  for (const u of usage?.calls ?? []) byPosition.set(u.position, reportedContext(u));
  const recorded = r.calls.map((c) => byPosition.get(c.position) ?? null);
  const none = r.calls.map((c) => Math.round(model.a + model.b * c.transcriptTokens));
  const context = r.calls.map((c) => c.contextTokens);
  const peak = (xs: ReadonlyArray<number | null>) => xs.reduce<number>((m, x) => (x !== null && x > m ? x : m), 0);
  const maxDepth = r.firings.reduce((m, f) => Math.max(m, f.maxDepth), 0);
  const recordedCount = recorded.filter((x) => x !== null).length;
  return {
    kind: 'projected',
    runId: null,
    status: null,
    calls: n,
    position: r.calls.map((c) => c.position),
    context,
    none,
    recorded,
    cacheRead: null,
    cacheWrite: null,
    costUsd: null,
    cumulativeCost: null,
    fired: r.calls.map((c) => c.fired),
    events: r.firings.map((f) => ({ call: f.call, position: f.position, kind: f.kind, reason: f.reason, contextBefore: f.contextBefore, contextAfter: f.contextAfter, summaries: f.created.length, maxDepth: f.maxDepth, costUsd: null })),
    lines: STRATEGY_DEFINITIONS[strategy].live.lines(params),
    note: STRATEGY_DEFINITIONS[strategy].live.note ?? null,
    contextModel: model,
    totals: [
      { id: 'variant', label: `${strategy} (projected)`, modelCalls: n, costUsd: null, cacheRead: null, cacheWrite: null, firings: r.firings.length, maxDepth, peakContext: peak(context) },
      { id: 'none', label: 'no compaction', modelCalls: n, costUsd: null, cacheRead: null, cacheWrite: null, firings: 0, maxDepth: 0, peakContext: peak(none) },
      ...(recordedCount > 0 ? [{ id: 'source' as const, label: "source's own (recorded)", modelCalls: n, costUsd: null, cacheRead: null, cacheWrite: null, firings: null, maxDepth: null, peakContext: peak(recorded) }] : []),
    ],
    contextWindow: null,
    overflowAtCall: null,
    pricing: null,
  };
}

export interface TimelineState {
  view: TimelineView | null;
  /** The projection of the parameters on screen is being recomputed (the chart shows the previous one). */
  stale: boolean;
  error: string | null;
  /** A replay run for exactly these parameters is loading or running. */
  replayPending: boolean;
}

/** How long parameters stay still before the projected timeline is recomputed. */
const PROJECTION_SETTLE_MS = 60;

export function useTimeline(wb: Workbench): TimelineState {
  const sessionId = wb.session?.id ?? null;
  const lastReplay = useStudio((s) => s.lastReplay);
  const activeRun = useStudio((s) => s.activeRun);
  const matching = lastReplay && lastReplay.sessionId === sessionId && lastReplay.strategy === wb.strategy && lastReplay.paramsKey === wb.paramsKey ? lastReplay : null;
  const replayRunning = matching !== null && activeRun?.runId === matching.runId && activeRun.status === 'running';
  const run = useReplayRun(matching && !replayRunning ? matching.runId : null);
  const usage = useSessionUsage(wb.listReady ? sessionId : null);

  // Projection: deferred and settled like the live plan, so a moving slider never waits for it.
  const input = useMemo(() => ({ strategy: wb.strategy, params: wb.params, metas: wb.metas, usage: usage.data, usageDone: !usage.isPending || sessionId === null }), [wb.strategy, wb.params, wb.metas, usage.data, usage.isPending, sessionId]);
  const deferred = useDeferredValue(input);
  const settled = useDebounced(deferred, PROJECTION_SETTLE_MS);
  const [projection, setProjection] = useState<{ input: typeof input; view: TimelineView | null; error: string | null } | null>(null);
  useEffect(() => {
    if (settled.metas.length === 0 || !settled.usageDone) return;
    let live = true;
    const metas = settled.metas as TurnMeta[];
    const fit = settled.usage?.overhead ?? null;
    const model = fit ? { a: fit.a, b: fit.b, source: 'fit' } : { a: DEFAULT_OVERHEAD_TOKENS, b: 1, source: 'parameter' };
    const byPosition = new Map((settled.usage?.calls ?? []).map((c) => [c.position, c] as const));
    const calls = callsOf(metas, (position) => {
      const u = byPosition.get(position);
      return { timestampMs: u?.timestamp ? Date.parse(u.timestamp) : null, outputTokens: u?.outputTokens ?? null };
    });
    (async () => {
      try {
        const prepared = prepareStrategy(settled.strategy, settled.params);
        const r = await projectTimeline({ prepared, metas, model, calls });
        if (live) setProjection({ input: settled, view: fromProjection(settled.strategy, prepared.params, r, settled.usage, model), error: null });
      } catch (err) {
        if (live) setProjection({ input: settled, view: null, error: (err as Error).message });
      }
    })();
    return () => {
      live = false;
    };
  }, [settled]);

  const replayView = useMemo(() => (run.data ? fromReplay(run.data) : null), [run.data]);
  if (replayView) return { view: replayView, stale: false, error: null, replayPending: false };
  const error = run.error ? `Cannot load replay #${matching?.runId}: ${(run.error as Error).message}` : (projection?.error ?? null);
  return { view: projection?.view ?? null, stale: projection?.input !== input, error, replayPending: replayRunning || run.isFetching };
}
