/**
 * The Timeline: context tokens per model call for the variant (its real replay when the
 * window has one for these parameters, else the projected timeline the sliders re-plan
 * live), the two baselines (no compaction; the source's own recorded context), the
 * strategy's trigger lines, firing markers and the cumulative cost on a second axis.
 * Hover reads a call's numbers; a click (on the chart or on a firing below it) selects the
 * call: the context the model received AS OF THAT CALL and the summaries made there.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type uPlot from 'uplot';
import { useReplayContextAt } from '../api/queries.js';
import { formatCompact, formatInt } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { useTimeline, type TimelineView } from '../plan/use-timeline.js';
import { actions, useStudio } from '../state/store.js';
import { ContextMessages, tokensByOrigin } from './ContextView.js';
import { UPlotChart, type ChartTheme } from './UPlotChart.js';

function formatUsd(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === 0) return '$0';
  if (Math.abs(x) < 0.01) return `$${x.toFixed(4)}`;
  if (Math.abs(x) < 100) return `$${x.toFixed(2)}`;
  return `$${formatInt(x)}`;
}

const dash = (n: number | null | undefined, f: (x: number) => string = formatInt) => (n === null || n === undefined ? '—' : f(n));

/** Series colours, in chart order; the legend uses the same. */
function seriesColors(t: ChartTheme) {
  return { context: t.accent, none: t.faint, recorded: t.teal, firing: t.danger, line: t.warn, cost: t.success };
}

function buildOptions(view: TimelineView, t: ChartTheme, selectedRef: React.RefObject<number | null>): Omit<uPlot.Options, 'width' | 'height'> {
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

function chartData(v: TimelineView): uPlot.AlignedData {
  const x = Array.from({ length: v.calls }, (_, i) => i);
  // A firing's marker sits where the trigger saw the context (before the pass), the top of the drop.
  const firing: Array<number | null> = v.context.map((c, i) => (v.fired[i] ? c : null));
  for (const e of v.events) if (e.call >= 0 && e.call < v.calls) firing[e.call] = Math.max(firing[e.call] ?? 0, e.contextBefore);
  const lines = v.lines.map((l) => x.map(() => l.tokens));
  const cost = v.cumulativeCost ?? x.map(() => null);
  return [x, v.context, v.none, v.recorded, firing, ...lines, cost] as uPlot.AlignedData;
}

function Legend({ view }: { view: TimelineView }) {
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
    </div>
  );
}

function Totals({ view }: { view: TimelineView }) {
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
          <tr key={r.id} className={`totals-${r.id}`} data-testid={`timeline-totals-${r.id}`}>
            <th>{r.label}</th>
            <td>{formatInt(r.modelCalls)}</td>
            <td>{formatUsd(r.costUsd)}</td>
            <td>{dash(r.cacheRead, formatCompact)}</td>
            <td>{dash(r.cacheWrite, formatCompact)}</td>
            <td>{dash(r.firings)}</td>
            <td>{dash(r.maxDepth)}</td>
            <td>{dash(r.peakContext, formatCompact)}</td>
          </tr>
        ))}
      </tbody>
    </table>
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
  const { view, stale, error, replayPending } = useTimeline(wb);
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

  const data = useMemo(() => (view ? chartData(view) : null), [view]);
  const makeOptions = useCallback((t: ChartTheme) => buildOptions(view!, t, selectedRef), [view]);
  const optionsKey = view ? `${view.kind}:${view.lines.length}:${view.lines.map((l) => l.label).join('|')}` : '';
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
          {formatInt(view.calls)} model calls · context = {formatInt(view.contextModel.a)} + {view.contextModel.b.toFixed(3)} × view ({view.contextModel.source === 'fit' ? 'fitted on reported usage' : 'no usage: overhead parameter'})
          {view.pricing ? ` · prices: ${view.pricing.model}${view.pricing.known ? '' : ' (unlisted: $0)'}` : ''}
        </span>
        {stale || replayPending ? <span className="muted small">{replayPending ? 'replaying…' : 'updating…'}</span> : null}
      </div>
      {view.note ? (
        <div className="timeline-note small" data-testid="timeline-note">
          {view.note}
        </div>
      ) : null}
      {view.kind === 'projected' ? <div className="muted small timeline-hint">Projected with summaries of their target size and no summarizer call: model-call costs are simulated as for a replay; summarizer costs come with a real Replay.</div> : null}
      <Legend view={view} />
      <div className="timeline-chart" data-testid="timeline-chart">
        {data ? <UPlotChart makeOptions={makeOptions} optionsKey={optionsKey} data={data} onCursor={setHover} onClick={onClick} redrawKey={sel} minHeight={150} /> : null}
      </div>
      {hover !== null && hover < view.calls ? <CallReadout view={view} idx={hover} label="hover" /> : sel !== null ? <CallReadout view={view} idx={sel} label="selected" /> : <div className="timeline-readout muted small">Hover a call for its numbers; click one for the context as of that call.</div>}
      <Totals view={view} />
      <div className="timeline-firings" data-testid="timeline-firings">
        <span className="section-title">Firings</span>
        {view.events.length === 0 ? <span className="muted small">none</span> : null}
        {view.events.map((e) => (
          <button
            key={`${e.kind}${e.call}`}
            type="button"
            className={`firing-chip${sel === e.call ? ' active' : ''}${e.kind === 'commit' ? ' commit' : ''}`}
            data-testid="timeline-firing"
            data-call={e.call}
            data-kind={e.kind}
            title={`${e.kind === 'fire' ? 'Fired' : 'Deferred work committed'} at call ${e.call} (turn ${e.position})${e.reason ? `: ${e.reason}` : ''} · ${formatInt(e.contextBefore)} → ${formatInt(e.contextAfter)} tokens · ${e.summaries} summaries · depth ${e.maxDepth}${e.costUsd !== null ? ` · ${formatUsd(e.costUsd)}` : ''}`}
            onClick={() => pickFiring(e.call)}
          >
            #{e.call} <span className="muted">{formatCompact(e.contextBefore)}→{formatCompact(e.contextAfter)}</span>
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
          <CallContext view={view} call={sel} onShown={onContextShown} />
        </div>
      ) : null}
    </div>
  );
});
