/**
 * The Timeline panel's data: the real replay of the current variant when the window has
 * one for exactly these parameters (getReplayRun), else the PROJECTED timeline computed
 * in the window with the shared live loop (projectTimeline: summaries of their target
 * size, no summarizer call), recomputed when a slider settles for a frame or two.
 * Both end up in one shape, so the chart does not care which it draws.
 */
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import type { ExternalCompactionInfo, ReplayEventInfo, ReplayTimeline, ReplayTotals, RunStatus, SummaryLedger } from '../../shared/contract.js';
import { figureFlags } from '../../shared/cost/figures.js';
import { projectTimeline } from '../../shared/replay/projection.js';
import { buildTimeline, firingEvents, replayInputs } from '../../shared/replay/timeline.js';
import { prepareStrategy } from '../../shared/strategies/index.js';
import type { OverheadFit } from '../../shared/usage/overhead.js';
import type { ModelCallUsage } from '../../shared/usage/types.js';
import { useReplayRun, useSessionDetail, useSessionUsage, useSettings } from '../api/queries.js';
import { useDebounced } from '../hooks/use-debounced.js';
import { useStudio } from '../state/store.js';
import type { Workbench } from './use-workbench.js';

/**
 * A firing as the panel draws it: the contract's event itself (a projection's are read from
 * their firings when asked: shared/replay/timeline.ts firingEvents `lazy`; they carry no ledger).
 */
export type TimelineEvent = ReplayEventInfo;

/** The source tool's own compaction on the timeline, with its summary's ledger (the baseline). */
export interface TimelineSourceEvent {
  call: number;
  position: number;
  reason: string;
  ledger: SummaryLedger | null;
}

export interface TimelineTotalsRow {
  id: 'variant' | 'none' | 'source' | 'source-simulated';
  label: string;
  /** "infeasible: exceeds N tokens at call K" and "unpriced: N calls (model …)", joined ("" when none). */
  flags: string;
  infeasible: boolean;
  /** False when calls at a model no price covers count $0 (the cost is a lower bound). */
  complete: boolean;
  byModel: NonNullable<ReplayTotals['byModel']>;
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
  sourceEvents: TimelineSourceEvent[];
  lines: Array<{ label: string; tokens: number }>;
  note: string | null;
  contextModel: { a: number; b: number; source: string };
  totals: TimelineTotalsRow[];
  contextWindow: number | null;
  overflowAtCall: number | null;
  pricing: ReplayTimeline['pricing'] | null;
  /** The source's recorded total, line by line (main session, its compaction calls, subagents), and whether subagents are in it. */
  sourceLines: NonNullable<ReplayTimeline['baselines']['source']['lines']>;
  includesSubagents: boolean | null;
  /** Simulated source ÷ recorded − 1: the usage model's error on this session (null: not measured). */
  usageModelError: number | null;
  placeholderOutputCalls: number;
}

function totalsRow(id: TimelineTotalsRow['id'], label: string, t: ReplayTotals): TimelineTotalsRow {
  return { id, label, flags: figureFlags(t), infeasible: Boolean(t.infeasible), complete: t.complete !== false, byModel: t.byModel ?? [], modelCalls: t.modelCalls, costUsd: t.costUsd + t.summarizerCostUsd, cacheRead: t.cacheReadTokens, cacheWrite: t.cacheWriteTokens, firings: t.firings, maxDepth: t.maxDepth, peakContext: t.peakContext };
}

function cumulative(xs: readonly number[]): number[] {
  const out = new Array<number>(xs.length);
  let sum = 0;
  for (let i = 0; i < xs.length; i++) out[i] = sum += xs[i];
  return out;
}

/** The view of a timeline document: a real replay's, or a projection built by the same shared/replay/timeline.ts. */
export function fromReplay(t: ReplayTimeline, kind: TimelineView['kind'] = 'replay'): TimelineView {
  const c = t.calls;
  const n = c.context.length;
  // Summarizer cost lands at the call of its firing.
  const cost = c.costUsd.slice();
  for (const e of t.events) if (e.call >= 0 && e.call < n) cost[e.call] += e.costUsd;
  const projected = kind === 'projected';
  return {
    kind,
    runId: projected ? null : t.runId,
    status: projected ? null : t.status,
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
    events: t.events,
    sourceEvents: t.baselines.source.events.map((e) => ({ call: e.call, position: e.turn, reason: e.reason, ledger: e.ledger ?? null })),
    lines: t.lines,
    note: t.note,
    contextModel: t.contextModel,
    totals: [
      totalsRow('variant', projected ? `${t.strategy} (projected)` : t.strategy, t.totals),
      totalsRow('none', 'no compaction', t.baselines.none.totals),
      ...(t.baselines.source.context.some((c) => c !== null)
        ? [...(t.baselines.source.simulated && t.baselines.source.events.length > 0 ? [totalsRow('source-simulated', "source's own, simulated", t.baselines.source.simulated.totals)] : []), totalsRow('source', "source's own, recorded", t.baselines.source.totals)]
        : []),
    ],
    contextWindow: t.baselines.none.contextWindow,
    overflowAtCall: t.baselines.none.overflowAtCall,
    pricing: t.pricing,
    sourceLines: t.baselines.source.lines ?? [],
    includesSubagents: t.baselines.source.includesSubagents ?? null,
    usageModelError: t.baselines.source.simulated?.usageModelError ?? null,
    placeholderOutputCalls: t.baselines.source.placeholderOutputCalls ?? 0,
  };
}

export interface TimelineState {
  view: TimelineView | null;
  /** The projection of the parameters on screen is being recomputed (the chart shows the previous one). */
  stale: boolean;
  error: string | null;
  /** A replay run for exactly these parameters is loading or running. */
  replayPending: boolean;
  /** The session's overhead fit (null: no reported usage to fit; undefined: not loaded yet). */
  fit: OverheadFit | null | undefined;
}

const NO_COMPACTIONS: ExternalCompactionInfo[] = [];
/** One empty list, so the session's replay inputs are built once (replayInputs keeps them per turns, usage and compactions). */
const NO_USAGE: ModelCallUsage[] = [];

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
  const detail = useSessionDetail(sessionId);
  const settingsData = useSettings(true).data;
  const prices = settingsData?.prices;
  const contextWindows = settingsData?.contextWindows;
  const external = detail.data?.externalCompactions_ ?? NO_COMPACTIONS;
  const input = useMemo(
    () => ({ sessionId, strategy: wb.strategy, params: wb.params, metas: wb.metas, usage: usage.data, external, prices, contextWindows, usageDone: (!usage.isPending && !detail.isPending) || sessionId === null }),
    [sessionId, wb.strategy, wb.params, wb.metas, usage.data, usage.isPending, external, prices, contextWindows, detail.isPending],
  );
  const deferred = useDeferredValue(input);
  const settled = useDebounced(deferred, PROJECTION_SETTLE_MS);
  const [projection, setProjection] = useState<{ input: typeof input; view: TimelineView | null; error: string | null } | null>(null);
  useEffect(() => {
    if (settled.metas.length === 0 || !settled.usageDone || settled.sessionId === null) return;
    let live = true;
    // The very inputs and timeline the engine's replay uses (shared/replay/timeline.ts), with projected summaries.
    const source = { sessionId: settled.sessionId, metas: settled.metas, usage: settled.usage?.calls ?? NO_USAGE, fit: settled.usage?.overhead ?? null, external: settled.external, children: settled.usage?.children ?? [] };
    const inputs = replayInputs(source);
    (async () => {
      try {
        const prepared = prepareStrategy(settled.strategy, settled.params);
        const r = await projectTimeline({ prepared, metas: settled.metas, model: inputs.model, calls: inputs.calls });
        const t = buildTimeline({ source, inputs, prepared, live: r, events: firingEvents(r.firings, { lazy: true }), runId: 0, variantId: 0, status: 'completed', userPrices: settled.prices, contextWindows: settled.contextWindows });
        // The source's own summaries are real even in a projection: their ledgers come with the session.
        for (const ev of t.baselines.source.events) ev.ledger = settled.external.find((x) => x.boundaryPosition === ev.turn)?.ledger ?? null;
        if (live) setProjection({ input: settled, view: fromReplay(t, 'projected'), error: null });
      } catch (err) {
        if (live) setProjection({ input: settled, view: null, error: (err as Error).message });
      }
    })();
    return () => {
      live = false;
    };
  }, [settled]);

  const replayView = useMemo(() => (run.data ? fromReplay(run.data) : null), [run.data]);
  const fit = usage.data ? usage.data.overhead : undefined;
  if (replayView) return { view: replayView, stale: false, error: null, replayPending: false, fit };
  const error = run.error ? `Cannot load replay #${matching?.runId}: ${(run.error as Error).message}` : (projection?.error ?? null);
  return { view: projection?.view ?? null, stale: projection?.input !== input, error, replayPending: replayRunning || run.isFetching, fit };
}
