/**
 * The Compare tab: 2–4 variants of the session side by side with the two baselines (no
 * compaction; the source tool's own compactions). Totals, their timelines overlaid (the
 * Timeline panel's `fromReplay` views on the one uPlot wrapper), a call picker (slider,
 * number, or a click on the chart), the context each sends at that call with every turn's
 * fate (verbatim, reshaped, masked, summarized, dropped) and where they differ, the
 * summaries of the same span side by side, and JSON / Markdown exports. The data is one
 * `compareVariants` answer (shared/compare/); this file only draws it.
 */
import { memo, useCallback, useMemo, useRef, useState } from 'react';
import type uPlot from 'uplot';
import type { ReplayTotals, VariantInfo } from '../../shared/contract.js';
import { figureFlags } from '../../shared/cost/figures.js';
import type { ColumnContext, CompareColumn, Comparison, ContextComparison, TurnFate } from '../../shared/compare/types.js';
import { TURN_FATES } from '../../shared/compare/types.js';
import { MAX_COMPARED_VARIANTS } from '../../shared/compare/compare.js';
import { exportComparisonJson, exportComparisonMarkdown } from '../../shared/export/comparison.js';
import { useApi, useComparison, useReplayRuns, useTransport, useVariants } from '../api/queries.js';
import { download } from '../hooks/use-studio-actions.js';
import { fromReplay, type TimelineView } from '../plan/use-timeline.js';
import { actions, useStudio } from '../state/store.js';
import { formatCompact, formatInt } from '../format.js';
import { STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import { paramsAwayFromDefaults } from '../../shared/strategies/params.js';
import { formatParamValue } from './ParamSlider.js';
import { UPlotChart, type ChartTheme } from './UPlotChart.js';

const usd = (x: number) => (x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`);
/** Column colours: the timeline's overlay palette for variants; the baselines as the Timeline draws them. */
const colorVar = (c: CompareColumn, k: number) => (c.kind === 'none' ? '--text-faint' : c.kind === 'source' ? '--teal' : `--overlay-${(k % 5) + 1}`);

/** "#3 rolling · compactionCount 40" (the parameters away from the defaults, as the variant table says them), with its name. */
function variantText(v: VariantInfo): string {
  const specs = STRATEGY_DEFINITIONS[v.strategy]?.specs ?? [];
  const changed = paramsAwayFromDefaults(specs, v.params).map(({ spec, value }) => `${spec.name} ${formatParamValue(spec, value)}`);
  const asOf = typeof v.params.asOfCall === 'number' ? [`as of call ${v.params.asOfCall}`] : [];
  const p = [...changed, ...asOf].join(', ') || 'defaults';
  return `#${v.id}${v.name ? ` ${v.name}` : ''} · ${v.strategy} · ${p}`;
}

/** The panel's own variant picker (until and beside the variant table): at most four ticked. */
function VariantPicker({ variants, ticked }: { variants: readonly VariantInfo[]; ticked: readonly number[] }) {
  const toggle = (id: number) => actions.setCompareVariantIds(ticked.includes(id) ? ticked.filter((x) => x !== id) : [...ticked, id].slice(-MAX_COMPARED_VARIANTS));
  if (variants.length === 0) return <div className="muted small">No variants yet: run Compact or Replay to make one.</div>;
  return (
    <div className="compare-picker small" data-testid="compare-picker">
      <span className="section-title">Variants</span>
      {variants.map((v) => (
        <label key={v.id} className={`overlay-item${ticked.includes(v.id) ? ' ticked' : ''}`} title={variantText(v)}>
          <input type="checkbox" checked={ticked.includes(v.id)} onChange={() => toggle(v.id)} data-testid={`compare-pick-${v.id}`} />
          <span className="mono">{variantText(v)}</span>
          <span className="muted">· {v.runs} run{v.runs === 1 ? '' : 's'}</span>
        </label>
      ))}
    </div>
  );
}

function TotalsTable({ c, onReplay }: { c: Comparison; onReplay(col: CompareColumn): void }) {
  const cell = (t: ReplayTotals | null, f: (t: ReplayTotals) => string) => (t ? f(t) : '—');
  return (
    <div className="timeline-totals-scroll">
      <table className="timeline-totals compare-totals" data-testid="compare-totals">
        <thead>
          <tr>
            <th>column</th>
            <th>cost</th>
            <th>input</th>
            <th>cache read</th>
            <th>peak</th>
            <th>compactions</th>
          </tr>
        </thead>
        <tbody>
          {c.columns.map((col, k) => {
            const t = c.totals[col.key] ?? null;
            return (
              <tr key={col.key} data-testid={`compare-totals-${col.key}`} data-status={col.status}>
                <th title={col.label}>
                  <span className="legend-swatch totals-swatch" style={{ borderTopColor: `var(${colorVar(col, k)})` }} />
                  {col.label}
                  {col.status === 'not-replayed' ? (
                    <button type="button" className="btn btn-small compare-replay" onClick={() => onReplay(col)} data-testid={`compare-replay-${col.variantId}`}>
                      not replayed · Replay
                    </button>
                  ) : col.status === 'one-shot' ? (
                    <span className="chip">one pass as of call {col.asOfCall}</span>
                  ) : null}
                </th>
                <td className={t && (t.infeasible || t.complete === false) ? 'figure-flagged' : undefined}>
                  {cell(t, (x) => usd(x.costUsd))}
                  {t && figureFlags(t) ? (
                    <div className="figure-flags small" data-testid={`compare-flags-${col.key}`}>
                      {figureFlags(t)}
                    </div>
                  ) : null}
                </td>
                <td>{cell(t, (x) => formatCompact(x.inputTokens))}</td>
                <td>{cell(t, (x) => formatCompact(x.cacheReadTokens))}</td>
                <td>{cell(t, (x) => formatCompact(x.peakContext))}</td>
                <td>{cell(t, (x) => String(x.firings))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

interface ChartSeries {
  key: string;
  label: string;
  colorVar: string;
  values: Array<number | null>;
  dash?: number[];
}

function chartOptions(series: readonly ChartSeries[], t: ChartTheme, selectedRef: React.RefObject<number | null>): Omit<uPlot.Options, 'width' | 'height'> {
  return {
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 6 } },
    scales: { x: { time: false }, tok: { range: (_u, _min, max) => [0, Math.max(1000, max * 1.05)] } },
    axes: [
      { stroke: t.muted, grid: { show: false }, ticks: { stroke: t.grid, width: 1 }, font: '11px sans-serif', size: 28 },
      { scale: 'tok', stroke: t.muted, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 }, font: '11px sans-serif', size: 52, values: (_u, splits) => splits.map((v) => formatCompact(v)) },
    ],
    series: [{}, ...series.map((s): uPlot.Series => ({ label: s.label, scale: 'tok', stroke: t.v(s.colorVar), width: s.dash ? 1.25 : 1.75, dash: s.dash, spanGaps: false, points: { show: false } }))],
    hooks: {
      draw: [
        (u) => {
          const sel = selectedRef.current;
          if (sel === null || sel >= u.data[0].length) return;
          const x = Math.round(u.valToPos(sel, 'x', true));
          u.ctx.save();
          u.ctx.strokeStyle = t.text;
          u.ctx.globalAlpha = 0.6;
          u.ctx.setLineDash([3, 3]);
          u.ctx.beginPath();
          u.ctx.moveTo(x + 0.5, u.bbox.top);
          u.ctx.lineTo(x + 0.5, u.bbox.top + u.bbox.height);
          u.ctx.stroke();
          u.ctx.restore();
        },
      ],
    },
  };
}

/** The replayed variants' context per call (the Timeline panel's views) with the two baselines, one chart. */
function OverlayChart({ c, views, call, onCall }: { c: Comparison; views: ReadonlyMap<string, TimelineView>; call: number; onCall(call: number): void }) {
  const series = useMemo(() => {
    const out: ChartSeries[] = [];
    c.columns.forEach((col, k) => {
      const v = views.get(col.key);
      if (v) out.push({ key: col.key, label: col.label, colorVar: colorVar(col, k), values: v.context });
    });
    const base = views.values().next().value;
    if (base) {
      out.push({ key: 'none', label: 'no compaction', colorVar: '--text-faint', values: base.none, dash: [5, 4] });
      out.push({ key: 'source', label: "source's own", colorVar: '--teal', values: base.recorded, dash: [2, 2] });
    }
    return out;
  }, [c, views]);
  const selectedRef = useRef<number | null>(call);
  selectedRef.current = call;
  const data = useMemo(() => [Array.from({ length: c.calls }, (_, i) => i), ...series.map((s) => s.values)] as uPlot.AlignedData, [series, c.calls]);
  const makeOptions = useCallback((t: ChartTheme) => chartOptions(series, t, selectedRef), [series]);
  if (series.length === 0) return <div className="empty-state small">No replay among these variants: replay one to see the timelines.</div>;
  return (
    <div className="compare-chart" data-testid="compare-chart" data-series={series.length}>
      <UPlotChart makeOptions={makeOptions} optionsKey={series.map((s) => s.key).join(',')} data={data} onClick={onCall} redrawKey={call} minHeight={140} />
    </div>
  );
}

const FATE_LABEL: Record<TurnFate, string> = { verbatim: 'verbatim', reshaped: 'reshaped', masked: 'masked', summarized: 'summarized', dropped: 'dropped' };

/** One column's context at the call: a strip of its turns by fate, its counts, its segments. */
function ContextColumn({ col, label, swatch, turns }: { col: ColumnContext; label: string; swatch: string; turns: number }) {
  return (
    <div className="compare-col" data-testid={`compare-col-${col.key}`}>
      <div className="compare-col-head">
        <span className="legend-swatch" style={{ borderTopColor: `var(${swatch})` }} />
        <b title={label}>{label}</b>
      </div>
      <div className="mono small">
        {col.contextTokens !== null ? `${formatInt(col.contextTokens)} tokens sent` : `${formatInt(col.viewTokens)} view tokens`} · {col.messages} messages
      </div>
      <div className="fate-strip" aria-label={`${label}: turns by fate`}>
        {col.segments.map((s) => (
          <span key={s.from} className={`fate fate-${s.fate}`} style={{ flexGrow: s.to - s.from + 1 }} title={`turns ${s.from}–${s.to}: ${s.fate}${s.summaryId !== null ? ` into #${s.summaryId}` : ''}`} />
        ))}
      </div>
      <div className="fate-counts small">
        {TURN_FATES.filter((f) => col.counts[f] > 0).map((f) => (
          <span key={f} className={`chip fate-chip fate-${f}`} data-testid={`compare-count-${col.key}-${f}`}>
            {FATE_LABEL[f]} {col.counts[f]}
          </span>
        ))}
        <span className="muted">of {turns}</span>
      </div>
      <ol className="fate-segments small mono">
        {col.segments.map((s) => (
          <li key={s.from} className={`fate-${s.fate}`}>
            {s.from === s.to ? `turn ${s.from}` : `turns ${s.from}–${s.to}`} {s.fate}
            {s.summaryId !== null ? ` → #${s.summaryId}` : ''}
          </li>
        ))}
      </ol>
    </div>
  );
}

function DiffTable({ ctx, labels }: { ctx: ContextComparison; labels: ReadonlyMap<string, string> }) {
  const rows = ctx.diff.filter((r) => !r.same);
  return (
    <table className="compare-diff" data-testid="compare-diff">
      <thead>
        <tr>
          <th>turns</th>
          {ctx.columns.map((c) => (
            <th key={c.key}>{labels.get(c.key) ?? c.key}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={ctx.columns.length + 1} className="muted">
              Every column treats every turn alike at this call.
            </td>
          </tr>
        ) : (
          rows.map((r) => (
            <tr key={r.from} data-testid="compare-diff-row">
              <th className="mono">{r.from === r.to ? r.from : `${r.from}–${r.to}`}</th>
              {r.fates.map((f, i) => (
                <td key={ctx.columns[i].key} className={`fate-cell fate-${f}${f !== r.fates[0] ? ' differs' : ''}`}>
                  {f}
                  {r.summaryIds[i] !== null ? <span className="muted"> #{r.summaryIds[i]}</span> : null}
                </td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

/** "Which facts survive in one and not the other": the facts of the turns any column compacted, ✓/✗ per column, by salience; only the rows where columns differ unless asked. */
function FactsTable({ ctx, labels }: { ctx: ContextComparison; labels: ReadonlyMap<string, string> }) {
  const [all, setAll] = useState(false);
  const f = ctx.facts;
  const rows = all ? f.rows : f.rows.filter((r) => r.differs);
  return (
    <div className="compare-facts" data-testid="compare-facts" data-total={f.total} data-differing={f.differing}>
      <div className="compare-facts-head small">
        <span className="muted">
          {formatInt(f.total)} facts in the {formatInt(f.compactedTurns)} turns some column compacted · kept:{' '}
          {f.columnKeys.map((k, i) => `${labels.get(k) ?? k} ${f.kept[i]}`).join(' · ')} · {formatInt(f.differing)} differ
        </span>
        <span className="muted" data-testid="compare-text-retention" title="Text-level: the same turns' paths, identifiers, numbers and commands found as written in each column's context">
          text-level: {formatInt(f.textTotal)} strings · kept: {f.columnKeys.map((k, i) => `${labels.get(k) ?? k} ${f.textKept[i]}`).join(' · ')}
        </span>
        <label>
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} data-testid="compare-facts-all" /> show every fact
        </label>
      </div>
      <table className="compare-diff">
        <thead>
          <tr>
            <th>fact</th>
            <th>category</th>
            <th className="num" title="shared/facts salience: mentions, recency, named by the user, failures and edits">salience</th>
            {f.columnKeys.map((k) => (
              <th key={k}>{labels.get(k) ?? k}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={3 + f.columnKeys.length} className="muted">
                {f.total === 0 ? 'No column compacted any turn before this call.' : 'Every column keeps or loses the same facts.'}
              </td>
            </tr>
          ) : (
            rows.map((r, i) => (
              <tr key={`${r.category}:${r.text}:${i}`} data-testid="compare-fact-row" data-differs={r.differs}>
                <td className="fact-text">
                  <code>{r.text}</code>
                  {r.detail ? <span className="muted"> ({r.detail})</span> : null}
                </td>
                <td className="muted">{r.category}</td>
                <td className="num mono">{r.salience.toFixed(2)}</td>
                {r.survives.map((x, j) => (
                  <td key={f.columnKeys[j]} className={`fact-cell ${x ? 'kept' : 'lost'}`} title={x ? 'survives in what this column sends' : 'lost in what this column sends'}>
                    {x ? '✓' : '✗'}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
      {f.rows.length < f.total ? <div className="muted small">The {formatInt(f.rows.length)} most salient of {formatInt(f.total)} facts are listed.</div> : null}
    </div>
  );
}

function SameSpan({ ctx, labels }: { ctx: ContextComparison; labels: ReadonlyMap<string, string> }) {
  if (ctx.sameSpan.length === 0) return <div className="muted small">No two columns summarize the same turns at this call.</div>;
  return (
    <>
      {ctx.sameSpan.map((g) => (
        <div key={g.from} className="same-span" data-testid="compare-same-span">
          <div className="section-title">
            Turns {g.from}–{g.to}
          </div>
          <div className="same-span-cols">
            {g.summaries.map((s) => (
              <div key={`${s.key}${s.id}`} className="same-span-col">
                <div className="small">
                  <b>{labels.get(s.key) ?? s.key}</b> <span className="muted">#{s.id} · {s.kind} · turns {s.firstPosition}–{s.lastPosition} · {formatInt(s.tokens)} tokens</span>
                </div>
                <pre className="summary-text">{s.text}</pre>
              </div>
            ))}
          </div>
        </div>
      ))}
    </>
  );
}

export const ComparePanel = memo(function ComparePanel({ sessionId }: { sessionId: number | null }) {
  const api = useApi();
  const transport = useTransport();
  const variants = useVariants(sessionId);
  const ticked = useStudio((s) => s.compareVariantIds);
  const [callBySession, setCall] = useState<{ sessionId: number | null; call: number | null }>({ sessionId: null, call: null });
  const askedCall = callBySession.sessionId === sessionId ? callBySession.call : null;
  const q = useComparison(sessionId, ticked, askedCall);
  const c = ticked.length > 0 ? (q.data ?? null) : null;
  const runIds = useMemo(() => (c ? c.columns.filter((x) => x.runId !== null).map((x) => x.runId!) : []), [c]);
  const runs = useReplayRuns(runIds);
  const runsKey = runs.map((r) => (r.data ? r.data.runId : 0)).join(',');
  const views = useMemo(() => {
    const m = new Map<string, TimelineView>();
    for (const r of runs) if (r.data && c) m.set(`v${r.data.variantId}`, fromReplay(r.data));
    return m;
    // runs is a fresh array each render; runsKey names what it holds.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [runsKey, c]);
  const pickCall = useCallback((call: number) => setCall({ sessionId, call }), [sessionId]);
  const replay = useCallback(
    async (col: CompareColumn) => {
      if (sessionId === null || !col.strategy) return;
      try {
        const { runId, variantId } = await api.startReplay({ sessionId, strategy: col.strategy, params: col.params ?? {} });
        actions.setActiveRun({ runId, variantId, sessionId, strategy: col.strategy, kind: 'replay', done: 0, total: 0, tokens: 0, status: 'running', stats: {}, error: null, startedAt: Date.now(), endedAt: null });
      } catch (err) {
        actions.notify({ kind: 'error', title: 'Could not start the replay', message: (err as Error).message });
      }
    },
    [api, sessionId],
  );
  const save = useCallback(
    async (kind: 'json' | 'markdown') => {
      if (!c) return;
      const file = kind === 'json' ? exportComparisonJson(c) : exportComparisonMarkdown(c);
      try {
        if (transport.kind === 'electron') {
          const { savedTo } = await api.saveExport({ fileName: file.fileName, content: file.content });
          if (savedTo) actions.notify({ kind: 'success', title: 'Exported', message: savedTo });
        } else download(file.fileName, file.mimeType, file.content);
      } catch (err) {
        actions.notify({ kind: 'error', title: 'Export failed', message: (err as Error).message });
      }
    },
    [api, transport, c],
  );

  if (sessionId === null) return <div className="empty-state">Select a session.</div>;
  const ctx = c?.context ?? null;
  const labels = new Map((c?.columns ?? []).map((x) => [x.key, x.label]));
  const colorOf = new Map((c?.columns ?? []).map((x, k) => [x.key, colorVar(x, k)]));
  return (
    <div className="compare-panel" data-testid="compare-panel">
      <VariantPicker variants={variants.data ?? []} ticked={ticked} />
      {ticked.length === 0 ? (
        <div className="empty-state small">Tick two to four variants to set them side by side.</div>
      ) : q.error ? (
        <div className="empty-state error-text">{(q.error as Error).message}</div>
      ) : !c ? (
        <div className="empty-state small">Comparing…</div>
      ) : (
        <>
          <div className="compare-actions">
            <button type="button" className="btn btn-small" onClick={() => void save('json')} data-testid="compare-export-json">
              Export JSON
            </button>
            <button type="button" className="btn btn-small" onClick={() => void save('markdown')} data-testid="compare-export-markdown">
              Export Markdown
            </button>
          </div>
          <TotalsTable c={c} onReplay={(col) => void replay(col)} />
          {ctx ? <OverlayChart c={c} views={views} call={ctx.call} onCall={pickCall} /> : null}
          {ctx ? (
            <>
              <div className="compare-call" data-testid="compare-call" data-call={ctx.call}>
                <label className="small">
                  call{' '}
                  <input type="number" min={0} max={Math.max(0, c.calls - 1)} value={ctx.call} onChange={(e) => e.target.value !== '' && pickCall(Math.max(0, Math.min(c.calls - 1, Number(e.target.value))))} data-testid="compare-call-input" />
                </label>
                <input type="range" min={0} max={Math.max(0, c.calls - 1)} value={ctx.call} onChange={(e) => pickCall(Number(e.target.value))} aria-label="model call" data-testid="compare-call-slider" />
                <span className="muted small">
                  turns 0–{ctx.position - 1} · {q.isFetching ? 'loading…' : 'click the chart to pick a call'}
                </span>
              </div>
              <div className="compare-cols" data-testid="compare-cols">
                {ctx.columns.map((col) => (
                  <ContextColumn key={col.key} col={col} label={labels.get(col.key) ?? col.key} swatch={colorOf.get(col.key) ?? '--accent'} turns={ctx.position} />
                ))}
              </div>
              <div className="section-title">Where they differ</div>
              <div className="compare-diff-scroll">
                <DiffTable ctx={ctx} labels={labels} />
              </div>
              <div className="section-title">Facts: which survive in one and not the other</div>
              <FactsTable ctx={ctx} labels={labels} />
              <div className="section-title">Summaries of the same span</div>
              <SameSpan ctx={ctx} labels={labels} />
            </>
          ) : null}
        </>
      )}
    </div>
  );
});

