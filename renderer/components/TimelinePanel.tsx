/**
 * The Timeline: context tokens per model call for the variant (its real replay when the
 * window has one for these parameters, else the projected timeline the sliders re-plan
 * live), the two baselines (no compaction; the source's own recorded context), the
 * strategy's trigger lines, firing markers and the cumulative cost on a second axis.
 * Hover reads a call's numbers; a click (on the chart or on a firing below it) selects the
 * call: the context the model received AS OF THAT CALL and the summaries made there.
 * Other completed replays of the session can be ticked and drawn over it (their context
 * series and a totals row each); the session's overhead fit and its spread sit above.
 */
import { textRetentionLabel } from '../../shared/retention/text.js';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type uPlot from 'uplot';
import { STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { OverheadFit } from '../../shared/usage/overhead.js';
import { useReplayContextAt, useReplayRuns, useSessionReplays, type SessionReplay } from '../api/queries.js';
import { formatCompact, formatInt, formatUsd } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { fromReplay, useTimeline, type TimelineTotalsRow, type TimelineView } from '../plan/use-timeline.js';
import { actions, useStudio } from '../state/store.js';
import { ContextMessages, tokensByOrigin } from './ContextView.js';
import { formatParamValue } from './ParamSlider.js';
import { paramsAwayFromDefaults } from '../../shared/strategies/params.js';
import { UPlotChart, type ChartTheme } from './UPlotChart.js';
import { chipEvents, MAX_FIRING_CHIPS } from '../plan/firing-chips.js';
import { LedgerView } from './LedgerView.js';
import { FACT_CATEGORIES, type SummaryLedger } from '../../shared/facts/types.js';
import { lostLine } from '../../shared/facts/ledger.js';


const dash = (n: number | null | undefined, f: (x: number) => string = formatInt) => (n === null || n === undefined ? '—' : f(n));

/** Series colours, in chart order; the legend uses the same. */
function seriesColors(t: ChartTheme) {
  return { context: t.accent, none: t.faint, recorded: t.teal, firing: t.danger, line: t.warn, cost: t.success };
}

/** Overlay colours: the theme's --overlay-1 … --overlay-N, cycled in tick order. */
const OVERLAY_COLORS = 5;
const overlayVar = (k: number) => `--overlay-${(k % OVERLAY_COLORS) + 1}`;

/** Another replay drawn over the main timeline. */
interface Overlay {
  runId: number;
  label: string;
  colorVar: string;
  view: TimelineView;
}

/** A replay named by its strategy, the parameters it set away from the defaults, and its run id. */
function replayLabel(r: SessionReplay): { strategy: string; params: string; run: string } {
  const specs = STRATEGY_DEFINITIONS[r.variant.strategy]?.specs ?? [];
  const params = paramsAwayFromDefaults(specs, r.variant.params)
    .map(({ spec, value }) => `${spec.name} ${formatParamValue(spec, value)}`)
    .join(', ');
  return { strategy: r.variant.strategy, params, run: `#${r.run.id}` };
}

function buildOptions(view: TimelineView, overlays: readonly Overlay[], t: ChartTheme, selectedRef: React.RefObject<number | null>): Omit<uPlot.Options, 'width' | 'height'> {
  const c = seriesColors(t);
  const axis = (scale: string, side: 1 | 3, format: (v: number) => string): uPlot.Axis => ({
    scale,
    side,
    stroke: t.muted,
    grid: { show: side === 3, stroke: t.grid, width: 1 },
    ticks: { stroke: t.grid, width: 1 },
    font: '11px sans-serif',
    size: 52,
    values: (_u, splits) => splits.map((v) => (v === null || v === undefined ? '' : format(v))),
  });
  return {
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 7 } },
    scales: { x: { time: false }, tok: { range: (_u, _min, max) => [0, Math.max(1000, max * 1.05)] }, usd: { range: (_u, _min, max) => [0, Math.max(0.01, max * 1.05)] } },
    axes: [
      { stroke: t.muted, grid: { show: false }, ticks: { stroke: t.grid, width: 1 }, font: '11px sans-serif', size: 28, values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')) },
      axis('tok', 3, formatCompact),
      { ...axis('usd', 1, (v) => formatUsd(v)), show: view.cumulativeCost !== null },
    ],
    series: [
      {},
      // Under the main series, so it stays on top where they overlap.
      ...overlays.map((o): uPlot.Series => ({ label: o.label, scale: 'tok', stroke: t.v(o.colorVar), width: 1.5, points: { show: false } })),
      { label: view.kind === 'projected' ? 'context (projected)' : 'context', scale: 'tok', stroke: c.context, width: 2 },
      { label: 'no compaction', scale: 'tok', stroke: c.none, width: 1.25, dash: [5, 4] },
      { label: 'source recorded', scale: 'tok', stroke: c.recorded, width: 1.25, spanGaps: false },
      { label: 'firing', scale: 'tok', stroke: c.firing, fill: c.firing, width: 0, paths: () => null, points: { show: true, size: 8, stroke: c.firing, fill: c.firing, width: 1 } },
      ...view.lines.map((l): uPlot.Series => ({ label: l.label, scale: 'tok', stroke: c.line, width: 1, dash: [2, 3], points: { show: false } })),
      { label: 'cumulative cost', scale: 'usd', stroke: c.cost, width: 1.5, points: { show: false } },
    ],
    hooks: {
      draw: [
        (u) => {
          const sel = selectedRef.current;
          if (sel === null || sel === undefined || sel >= u.data[0].length) return;
          const x = Math.round(u.valToPos(sel, 'x', true));
          const ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = t.text;
          ctx.globalAlpha = 0.55;
          ctx.lineWidth = 1;
          ctx.setLineDash([3, 3]);
          ctx.beginPath();
          ctx.moveTo(x + 0.5, u.bbox.top);
          ctx.lineTo(x + 0.5, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        },
      ],
    },
  };
}

function chartData(v: TimelineView, overlays: readonly Overlay[]): uPlot.AlignedData {
  const x = Array.from({ length: v.calls }, (_, i) => i);
  // A firing's marker sits where the trigger saw the context (before the pass), the top of the drop.
  const firing: Array<number | null> = v.context.map((c, i) => (v.fired[i] ? c : null));
  for (const e of v.events) if (e.call >= 0 && e.call < v.calls) firing[e.call] = Math.max(firing[e.call] ?? 0, e.contextBefore);
  const lines = v.lines.map((l) => x.map(() => l.tokens));
  const cost = v.cumulativeCost ?? x.map(() => null);
  return [x, ...overlays.map((o) => o.view.context), v.context, v.none, v.recorded, firing, ...lines, cost] as uPlot.AlignedData;
}

function Legend({ view, overlays }: { view: TimelineView; overlays: readonly Overlay[] }) {
  const item = (cls: string, label: string, title?: string) => (
    <span className="legend-item" title={title}>
      <span className={`legend-swatch ${cls}`} />
      {label}
    </span>
  );
  return (
    <div className="timeline-legend">
      {item('sw-context', view.kind === 'projected' ? 'context (projected)' : 'context', 'What the model receives under the variant: a + b × view tokens')}
      {item('sw-none', 'no compaction')}
      {view.recorded.some((x) => x !== null) ? item('sw-recorded', 'source recorded', "The context the source reported for each call (its own compactions included)") : null}
      {item('sw-firing', `firings (${view.events.length})`)}
      {view.lines.length > 0 ? item('sw-line', view.lines.map((l) => `${l.label} ${formatCompact(l.tokens)}`).join(' · ')) : null}
      {view.cumulativeCost ? item('sw-cost', 'cumulative cost (right axis)') : null}
      {overlays.map((o) => (
        <span key={o.runId} className="legend-item" data-testid="timeline-legend-overlay" data-run-id={o.runId}>
          <span className="legend-swatch" style={{ borderTopColor: `var(${o.colorVar})` }} />
          {o.label}
        </span>
      ))}
    </div>
  );
}

function CallReadout({ view, idx, label }: { view: TimelineView; idx: number; label: string }) {
  const events = view.events.filter((e) => e.call === idx);
  const recorded = view.recorded[idx];
  return (
    <div className="timeline-readout mono" data-testid={label === 'selected' ? 'timeline-selected' : 'timeline-hover'} data-call={idx}>
      <span className="muted">{label}</span>
      <b>call {idx}</b>
      <span>· turn {view.position[idx]}</span>
      <span>
        · context <b>{formatInt(view.context[idx])}</b>
      </span>
      {view.cacheRead ? <span>· cache read {formatInt(view.cacheRead[idx])}</span> : null}
      {view.cacheWrite ? <span>· write {formatInt(view.cacheWrite[idx])}</span> : null}
      {view.costUsd ? <span>· cost {formatUsd(view.costUsd[idx])} (Σ {formatUsd(view.cumulativeCost?.[idx])})</span> : null}
      <span className="muted">· no compaction {formatInt(view.none[idx])}</span>
      {recorded !== null && recorded !== undefined ? <span className="muted">· recorded {formatInt(recorded)}</span> : null}
      {events.map((e) => (
        <span key={`${e.kind}${e.call}`} className="chip chip-fire">
          {e.kind === 'fire' ? 'fired' : 'committed'}: {formatCompact(e.contextBefore)} → {formatCompact(e.contextAfter)}
        </span>
      ))}
      {events.map((e) => (e.ledger ? <span key={`lost${e.kind}${e.call}`} className="timeline-lost" data-testid="timeline-lost-line">{lostLine(e.ledger.lost, 3)}</span> : null))}
      {view.sourceEvents
        .filter((e) => e.call === idx)
        .map((e) => (
          <span key={`src${e.call}`} className="chip chip-external" title={e.ledger ? lostLine(e.ledger.lost, 5) : undefined}>
            source compacted{e.ledger ? ` · kept ${keptShare(e.ledger)}` : ''}
          </span>
        ))}
    </div>
  );
}

/** "facts 27/71 · text 12/40 (30.0%)": facts kept over every category, and the text-level score beside it. */
function keptShare(l: SummaryLedger): string {
  let kept = 0;
  let total = 0;
  for (const c of FACT_CATEGORIES) {
    kept += l.retention[c].kept;
    total += l.retention[c].total;
  }
  return `facts ${kept}/${total} · ${textRetentionLabel(l.text)}`;
}

/** The ledgers at the selected call: each firing's (the facts of the turns it compacted against the context right after it) and the source tool's own compaction there (the baseline). */
function CallLedgers({ view, call }: { view: TimelineView; call: number }) {
  const events = view.events.filter((e) => e.call === call);
  const source = view.sourceEvents.filter((e) => e.call === call);
  if (events.length === 0 && source.length === 0) return null;
  return (
    <div className="timeline-ledgers" data-testid="timeline-ledgers">
      {events.map((e) =>
        view.kind === 'projected' ? (
          <div key={`${e.kind}${e.call}`} className="muted small" data-testid="timeline-firing-ledger" data-empty="true">
            Projected firing: its loss ledger comes with a real Replay (projected summaries have no text).
          </div>
        ) : (
          <LedgerView key={`${e.kind}${e.call}`} ledger={e.ledger} title={`Firing at call ${e.call}: facts of the compacted turns in the context after it`} testId="timeline-firing-ledger" />
        ),
      )}
      {source.map((e) => (
        <LedgerView key={`src${e.call}`} ledger={e.ledger} title={`Baseline: the source's own compaction at call ${e.call} (its summary)`} testId="timeline-source-ledger" />
      ))}
    </div>
  );
}

function TotalsRow({ r, testId, className, swatch }: { r: TimelineTotalsRow; testId: string; className: string; swatch?: string }) {
  return (
    <tr className={className} data-testid={testId}>
      <th title={r.label}>
        {swatch ? <span className="legend-swatch totals-swatch" style={{ borderTopColor: `var(${swatch})` }} /> : null}
        {r.label}
      </th>
      <td>{formatInt(r.modelCalls)}</td>
      <td className={r.infeasible || !r.complete ? 'figure-flagged' : undefined} title={r.byModel.map((l) => `${l.model}: ${l.calls} calls, ${l.known ? formatUsd(l.costUsd) : 'unpriced'}`).join('\n') || undefined}>
        {formatUsd(r.costUsd)}
        {r.infeasible ? <span className="muted small"> (would have cost)</span> : null}
        {!r.complete ? <span className="muted small"> (incomplete)</span> : null}
        {r.flags ? (
          <div className="figure-flags small" data-testid={`${testId}-flags`}>
            {r.flags}
          </div>
        ) : null}
      </td>
      <td>{dash(r.cacheRead, formatCompact)}</td>
      <td>{dash(r.cacheWrite, formatCompact)}</td>
      <td>{dash(r.firings)}</td>
      <td>{dash(r.maxDepth)}</td>
      <td>{dash(r.peakContext, formatCompact)}</td>
    </tr>
  );
}

function Totals({ view, overlays }: { view: TimelineView; overlays: readonly Overlay[] }) {
  return (
    <div className="timeline-totals-scroll">
    <table className="timeline-totals" data-testid="timeline-totals">
      <thead>
        <tr>
          <th />
          <th>calls</th>
          <th>cost</th>
          <th>cache read</th>
          <th>cache write</th>
          <th>firings</th>
          <th>max depth</th>
          <th>peak context</th>
        </tr>
      </thead>
      <tbody>
        {view.totals.map((r) => (
          <TotalsRow key={r.id} r={r} className={`totals-${r.id}`} testId={`timeline-totals-${r.id}`} />
        ))}
        {overlays.map((o) => (
          <TotalsRow key={`run${o.runId}`} r={{ ...o.view.totals[0], label: o.label }} className="totals-overlay" testId={`timeline-totals-run-${o.runId}`} swatch={o.colorVar} />
        ))}
      </tbody>
    </table>
    <SourceLines view={view} />
    </div>
  );
}

/** The source's recorded total line by line, the placeholders in it, and the usage model's error (the error bar of every simulated figure). */
function SourceLines({ view }: { view: TimelineView }) {
  if (view.sourceLines.length === 0) return null;
  const err = view.usageModelError;
  return (
    <div className="timeline-source-lines small" data-testid="timeline-source-lines">
      <div className="muted">
        Source recorded = main session + the source tool&apos;s own compaction calls{view.includesSubagents === false ? ' (subagents left out)' : ' + its subagents'}:
      </div>
      <ul>
        {view.sourceLines.map((l) => (
          <li key={`${l.kind}${l.sessionId}`} data-testid={`timeline-source-line-${l.kind}`}>
            {l.kind} · {formatUsd(l.costUsd)} · {formatInt(l.calls)} calls · {l.label}
            {l.placeholderOutputCalls > 0 ? <span className="muted"> · {l.placeholderOutputCalls} with a streaming placeholder as output (a floor)</span> : null}
          </li>
        ))}
      </ul>
      <div data-testid="timeline-usage-model-error">
        {err === null ? 'Usage model error: not measured (the source never compacted).' : `Usage model error on this session: ${err >= 0 ? '+' : ''}${(err * 100).toFixed(1)}% (the source's own compactions simulated vs recorded) — the error bar of every simulated cost above.`}
      </div>
    </div>
  );
}

/** The session's context model: the overhead fit and how well it fits, or the parameter when nothing was reported. */
function FitLine({ fit, view }: { fit: OverheadFit | null | undefined; view: TimelineView }) {
  if (fit === undefined) return null;
  if (fit === null) {
    return (
      <div className="timeline-fit muted small" data-testid="timeline-fit" data-calls={0}>
        no reported usage: overhead = parameter ({formatInt(view.contextModel.a)}) · context = {formatInt(view.contextModel.a)} + {view.contextModel.b.toFixed(3)} × transcript
      </div>
    );
  }
  return (
    <div
      className="timeline-fit muted small"
      data-testid="timeline-fit"
      data-calls={fit.calls}
      title="Least squares over the source's calls with a trusted reported context, before its first own compaction (shared/usage/overhead.ts). Spread: the standard deviation of reported − estimate."
    >
      context = <b>{formatInt(fit.a)}</b> + <b>{fit.b.toFixed(3)}</b> × transcript, fitted over {formatInt(fit.calls)} calls, mean error {fit.meanErrorPct.toFixed(2)}%, max {fit.maxErrorPct.toFixed(2)}%, spread ±{formatInt(fit.residualSpread)} tokens
    </div>
  );
}

/** The session's other completed replays, each with a checkbox that draws it over the main timeline. */
function OverlayPicker({ replays, mainRunId, ticked, colorOf, calls, onToggle }: { replays: readonly SessionReplay[]; mainRunId: number | null; ticked: readonly number[]; colorOf: (runId: number) => string | null; calls: number; onToggle(runId: number): void }) {
  return (
    <div className="timeline-overlays small" data-testid="timeline-overlays">
      <span className="section-title">Compare</span>
      {replays.length === 0 ? <span className="muted">no completed replays of this session yet: Replay other parameters to compare them here</span> : null}
      {replays.map((r) => {
        const main = r.run.id === mainRunId;
        const label = replayLabel(r);
        const runCalls = typeof r.run.stats.modelCalls === 'number' ? r.run.stats.modelCalls : null;
        const otherCalls = runCalls !== null && runCalls !== calls;
        const color = colorOf(r.run.id);
        return (
          <label
            key={r.run.id}
            className={`overlay-item${main ? ' main' : ''}${otherCalls ? ' disabled' : ''}`}
            data-testid="timeline-overlay"
            data-run-id={r.run.id}
            title={main ? 'The replay shown as the main series' : otherCalls ? `${runCalls} model calls, not ${calls}: cannot be drawn on this chart` : `Draw replay #${r.run.id} over the timeline`}
          >
            <input type="checkbox" checked={main || ticked.includes(r.run.id)} disabled={main || otherCalls} onChange={() => onToggle(r.run.id)} />
            {color ? <span className="legend-swatch" style={{ borderTopColor: `var(${color})` }} /> : null}
            <b>{label.strategy}</b>
            {label.params ? <span className="mono">{label.params}</span> : <span className="muted">defaults</span>}
            <span className="muted">{label.run}{main ? ' · shown' : ''}</span>
          </label>
        );
      })}
    </div>
  );
}

function CallContext({ view, call, onShown }: { view: TimelineView; call: number; onShown(): void }) {
  const at = useReplayContextAt(view.kind === 'replay' ? view.runId : null, call);
  const shown = view.kind === 'projected' || at.data !== undefined || at.error !== null;
  useEffect(() => {
    if (shown) onShown();
  }, [shown, call, onShown]);
  const messages = at.data?.messages;
  const byOrigin = useMemo(() => (messages ? tokensByOrigin(messages) : null), [messages]);
  if (view.kind === 'projected') {
    return <div className="muted small timeline-hint">Projected: no summaries exist yet. Press Replay to see what the model received at this call.</div>;
  }
  if (at.isPending) return <div className="muted small timeline-hint">Loading the context as of call {call}…</div>;
  if (at.error) return <div className="error-text small timeline-hint">Cannot load the context at call {call}: {(at.error as Error).message}</div>;
  const d = at.data!;
  return (
    <div className="timeline-call-context" data-testid="timeline-call-context" data-call={d.call} data-position={d.position} data-message-count={d.messages.length} data-summaries={d.summaries.length}>
      <div className="context-summary">
        <span>
          As of call <b>{d.call}</b> (turn {d.position}): <b>{formatInt(d.messages.length)}</b> messages · <b>{formatInt(d.totalTokens)}</b> tokens
        </span>
        {byOrigin ? (
          <span className="muted">
            turns {formatInt(byOrigin.counts.turn)} ({formatCompact(byOrigin.sums.turn)}) · summaries {formatInt(byOrigin.counts.summary)} ({formatCompact(byOrigin.sums.summary)})
          </span>
        ) : null}
      </div>
      {d.summaries.length > 0 ? (
        <div className="timeline-summaries" data-testid="timeline-call-summaries">
          <div className="section-title">Summaries made at this call ({d.summaries.length})</div>
          {d.summaries.map((s) => (
            <details key={s.id} className="timeline-summary">
              <summary>
                <span className={`chip chip-${s.depth > 0 ? 'condensed' : 'leaf'}`}>{s.kind}</span> s{s.id} · depth {s.depth} · turns {s.firstPosition}–{s.lastPosition} · {formatInt(s.tokenCount)} tokens · {s.tier}
                {s.cacheHit ? ' · cache hit' : ''}
              </summary>
              <pre className="summary-text">{s.text}</pre>
            </details>
          ))}
        </div>
      ) : null}
      <div className="timeline-context-list">
        <ContextMessages messages={d.messages} />
      </div>
    </div>
  );
}

export const TimelinePanel = memo(function TimelinePanel({ wb }: { wb: Workbench }) {
  const { view, stale, error, replayPending, fit } = useTimeline(wb);
  const sessionId = wb.session?.id ?? null;
  const replays = useSessionReplays(wb.listReady ? sessionId : null);
  // Ticked overlays, in tick order (their colours follow it); per session.
  const [tickedBySession, setTicked] = useState<{ sessionId: number | null; runs: number[] }>({ sessionId: null, runs: [] });
  const mainRunId = view?.kind === 'replay' ? view.runId : null;
  const ticked = useMemo(() => {
    if (tickedBySession.sessionId !== sessionId) return [];
    const known = new Set((replays.data ?? []).map((r) => r.run.id));
    return tickedBySession.runs.filter((id) => known.has(id) && id !== mainRunId);
  }, [tickedBySession, sessionId, replays.data, mainRunId]);
  const toggleOverlay = useCallback(
    (runId: number) =>
      setTicked((prev) => {
        const runs = prev.sessionId === sessionId ? prev.runs : [];
        return { sessionId, runs: runs.includes(runId) ? runs.filter((id) => id !== runId) : [...runs, runId] };
      }),
    [sessionId],
  );
  const overlayRuns = useReplayRuns(ticked);
  const overlayData = overlayRuns.map((q) => q.data);
  const overlayKey = overlayData.map((d) => (d ? d.runId : 0)).join(',');
  const overlays = useMemo((): Overlay[] => {
    const out: Overlay[] = [];
    ticked.forEach((runId, k) => {
      const t = overlayData[k];
      const r = replays.data?.find((x) => x.run.id === runId);
      if (!t || !r || !view || t.calls.context.length !== view.calls) return;
      const l = replayLabel(r);
      out.push({ runId, label: `${l.strategy}${l.params ? ` (${l.params})` : ''} ${l.run}`, colorVar: overlayVar(k), view: fromReplay(t) });
    });
    return out;
    // overlayData is a fresh array each render; overlayKey names what it holds.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ticked, overlayKey, replays.data, view]);
  const colorOf = useCallback((runId: number) => overlays.find((o) => o.runId === runId)?.colorVar ?? null, [overlays]);
  const selected = useStudio((s) => s.timelineCall);
  const [hover, setHover] = useState<number | null>(null);
  const selectionRef = useRef<HTMLDivElement>(null);
  /** A firing picked from the list: select its call and bring the context as of that call into view. */
  const scrollPending = useRef(false);
  const pickFiring = useCallback((call: number) => {
    scrollPending.current = true;
    actions.selectTimelineCall(call);
  }, []);
  // Once its context has loaded (it sets the section's height), not before.
  const onContextShown = useCallback(() => {
    if (!scrollPending.current) return;
    scrollPending.current = false;
    requestAnimationFrame(() => selectionRef.current?.scrollIntoView({ block: 'start' }));
  }, []);
  const selectedRef = useRef<number | null>(selected);
  selectedRef.current = selected;

  const data = useMemo(() => (view ? chartData(view, overlays) : null), [view, overlays]);
  const makeOptions = useCallback((t: ChartTheme) => buildOptions(view!, overlays, t, selectedRef), [view, overlays]);
  const optionsKey = view ? `${view.kind}:${view.lines.length}:${view.lines.map((l) => l.label).join('|')}:${overlays.map((o) => `${o.runId}${o.colorVar}`).join(',')}` : '';
  const onClick = useCallback((idx: number) => actions.selectTimelineCall(idx), []);

  if (!wb.session) return <div className="empty-state">Select a session.</div>;
  if (!view) return <div className="empty-state">{error ?? (wb.metas.length === 0 ? 'Loading the turns…' : 'Projecting the timeline…')}</div>;

  const sel = selected !== null && selected < view.calls ? selected : null;
  const firings = view.events.filter((e) => e.kind === 'fire').length;
  return (
    <div className="timeline-panel" data-testid="timeline-panel" data-kind={view.kind} data-run-id={view.runId ?? ''} data-status={view.status ?? ''} data-calls={view.calls} data-firings={firings} data-events={view.events.length}>
      <div className="timeline-head">
        <span className={`chip ${view.kind === 'projected' ? 'chip-projected' : 'chip-replay'}`} data-testid="timeline-kind">
          {view.kind === 'projected' ? 'projected' : `replay #${view.runId}${view.status && view.status !== 'completed' ? ` · ${view.status}` : ''}`}
        </span>
        <span className="muted small">
          {formatInt(view.calls)} model calls
          {view.pricing ? ` · each call priced at its model: ${(view.pricing.models ?? [view.pricing.model]).join(', ')}${view.pricing.known ? '' : ' (some unpriced: counted, not $0)'}` : ''}
        </span>
        {stale || replayPending ? <span className="muted small">{replayPending ? 'replaying…' : 'updating…'}</span> : null}
      </div>
      {view.note ? (
        <div className="timeline-note small" data-testid="timeline-note">
          {view.note}
        </div>
      ) : null}
      <FitLine fit={fit} view={view} />
      {view.kind === 'projected' ? <div className="muted small timeline-hint">Projected with summaries of their target size and no summarizer call: model-call costs are simulated as for a replay; summarizer costs come with a real Replay.</div> : null}
      <OverlayPicker replays={replays.data ?? []} mainRunId={mainRunId} ticked={ticked} colorOf={colorOf} calls={view.calls} onToggle={toggleOverlay} />
      <Legend view={view} overlays={overlays} />
      <div className="timeline-chart" data-testid="timeline-chart" data-series={1 + overlays.length} data-overlays={overlays.map((o) => o.runId).join(',')}>
        {data ? <UPlotChart makeOptions={makeOptions} optionsKey={optionsKey} data={data} onCursor={setHover} onClick={onClick} redrawKey={sel} minHeight={150} /> : null}
      </div>
      {hover !== null && hover < view.calls ? <CallReadout view={view} idx={hover} label="hover" /> : sel !== null ? <CallReadout view={view} idx={sel} label="selected" /> : <div className="timeline-readout muted small">Hover a call for its numbers; click one for the context as of that call.</div>}
      <Totals view={view} overlays={overlays} />
      <div className="timeline-firings" data-testid="timeline-firings">
        <span className="section-title">Firings</span>
        {view.events.length === 0 ? <span className="muted small">none</span> : null}
        {chipEvents(view.events, sel).map((e) => (
          <button
            key={`${e.kind}${e.call}`}
            type="button"
            className={`firing-chip${sel === e.call ? ' active' : ''}${e.kind === 'commit' ? ' commit' : ''}`}
            data-testid="timeline-firing"
            data-call={e.call}
            data-kind={e.kind}
            title={`${e.kind === 'fire' ? 'Fired' : 'Deferred work committed'} at call ${e.call} (turn ${e.turn})${e.reason ? `: ${e.reason}` : ''} · ${formatInt(e.contextBefore)} → ${formatInt(e.contextAfter)} tokens · ${e.summaryIds.length} summaries · depth ${e.maxDepth} · ${formatUsd(e.costUsd)}`}
            onClick={() => pickFiring(e.call)}
          >
            #{e.call} <span className="muted">{formatCompact(e.contextBefore)}→{formatCompact(e.contextAfter)}</span>
          </button>
        ))}
        {view.events.length > MAX_FIRING_CHIPS ? (
          <span className="muted small" data-testid="timeline-firings-more">
            … {formatInt(view.events.length - MAX_FIRING_CHIPS)} more (the first {MAX_FIRING_CHIPS} are listed): click a call on the chart to open any firing
          </span>
        ) : null}
        {view.sourceEvents.map((e) => (
          <button
            key={`src${e.call}`}
            type="button"
            className={`firing-chip source${sel === e.call ? ' active' : ''}`}
            data-testid="timeline-source-compaction"
            data-call={e.call}
            title={`The source tool compacted before call ${e.call} (turn ${e.position})${e.reason ? `: ${e.reason}` : ''}${e.ledger ? ` · ${lostLine(e.ledger.lost, 5)}` : ''}`}
            onClick={() => pickFiring(e.call)}
          >
            source #{e.call}
            {e.ledger ? <span className="muted"> kept {keptShare(e.ledger)}</span> : null}
          </button>
        ))}
      </div>
      {sel !== null ? (
        <div className="timeline-selection" ref={selectionRef}>
          <div className="timeline-selection-head">
            <span className="section-title">Call {sel}</span>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => actions.selectTimelineCall(null)} aria-label="Close the call">
              ✕
            </button>
          </div>
          <CallLedgers view={view} call={sel} />
          <CallContext view={view} call={sel} onShown={onContextShown} />
        </div>
      ) : null}
    </div>
  );
});
