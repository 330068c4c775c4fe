/**
 * The Sweeps tab (docs/sweeps.md): a sweep the `sweep` CLI stored, as a chart of cost against
 * retention, one point per parameter point (summed over the sweep's sessions, or one
 * session's), the Pareto front drawn as a line through the points nothing beats on both.
 * Hover reads out a point's parameters and figures; a click opens its variant (the row of
 * the current session if the sweep covers it, else the first session's): the session is
 * selected, the variant loaded, and the Variants tab shows it. The rows below open the same way.
 * What is plotted is computed in shared/sweep/chart.ts; this file only draws it.
 */
import { memo, useCallback, useMemo, useState } from 'react';
import type uPlot from 'uplot';
import type { SweepDetail, SweepInfo, SweepRow } from '../../shared/contract.js';
import { pointLabel, sweepChart, sweepCost, sweepCostLabel, type SweepChart, type SweepChartPoint } from '../../shared/sweep/index.js';
import { useSweep, useSweeps } from '../api/queries.js';
import { formatCompact, formatInt, formatTime } from '../format.js';
import { actions } from '../state/store.js';
import { UPlotChart, type ChartTheme } from './UPlotChart.js';

const usd = (x: number) => (x < 0.01 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`);
const costText = (sweep: SweepInfo, x: number) => (sweep.kind === 'replay' ? usd(x) : `${formatCompact(x)} tokens`);
const pctText = (x: number | null) => (x === null ? '—' : `${x.toFixed(1)}%`);

function sweepTitle(s: SweepInfo): string {
  return `#${s.id} ${s.strategy} ${s.kind} · ${s.grid.map((a) => `${a.name} ${a.values.join('/')}`).join(' × ')} · ${s.sessionIds.length} session${s.sessionIds.length === 1 ? '' : 's'} · ${formatTime(s.createdAt)}`;
}

/** Opens the variant of one row: its session selected, the variant loaded, the variant table shown. */
function openRow(sweep: SweepInfo, row: SweepRow): void {
  actions.selectSession(row.sessionId);
  actions.loadVariant({ id: row.variantId, strategy: sweep.strategy, params: { ...sweep.fixedParams, ...row.params } });
  actions.setTab('variants');
}

/** The row of a chart point to open: the current session's if the sweep has one, else the first. */
function rowToOpen(point: SweepChartPoint, sessionId: number | null): SweepRow {
  return point.rows.find((r) => r.sessionId === sessionId) ?? point.rows[0];
}

function chartOptions(sweep: SweepInfo, chart: SweepChart, t: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> {
  return {
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 11, fill: t.accent } },
    scales: { x: { time: false }, pct: { range: (_u, min, max) => [Math.max(0, Math.floor(min - 5)), Math.min(100, Math.ceil(max + 5))] } },
    axes: [
      { label: sweepCostLabel(sweep.kind), labelSize: 18, labelFont: '11px sans-serif', stroke: t.muted, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 }, font: '11px sans-serif', size: 30, values: (_u, splits) => splits.map((v) => (sweep.kind === 'replay' ? usd(v) : formatCompact(v))) },
      { scale: 'pct', label: 'facts kept %', labelSize: 18, labelFont: '11px sans-serif', stroke: t.muted, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid, width: 1 }, font: '11px sans-serif', size: 44, values: (_u, splits) => splits.map((v) => `${v}%`) },
    ],
    series: [
      {},
      // Every parameter point: points only.
      { label: 'points', scale: 'pct', stroke: t.muted, width: 0, paths: () => null, points: { show: true, size: 8, stroke: t.muted, fill: t.panel, width: 1.5 } },
      // The Pareto front: a line through its points.
      { label: 'Pareto front', scale: 'pct', stroke: t.accent, width: 2, spanGaps: true, points: { show: true, size: 9, stroke: t.accent, fill: t.accent } },
    ],
  };
}

const SweepChartView = memo(function SweepChartView({ sweep, chart, sessionId }: { sweep: SweepInfo; chart: SweepChart; sessionId: number | null }) {
  const [hover, setHover] = useState<number | null>(null);
  const data = useMemo(() => [chart.points.map((p) => p.cost), chart.points.map((p) => p.retentionPct), chart.points.map((p) => (p.onFront ? p.retentionPct : null))] as uPlot.AlignedData, [chart]);
  const makeOptions = useCallback((t: ChartTheme) => chartOptions(sweep, chart, t), [sweep, chart]);
  const onClick = useCallback((i: number) => {
    const p = chart.points[i];
    if (p) openRow(sweep, rowToOpen(p, sessionId));
  }, [chart, sweep, sessionId]);
  const shown = hover !== null ? chart.points[hover] : null;
  if (chart.points.length === 0) {
    return (
      <div className="empty-state small" data-testid="sweep-chart-empty">
        Nothing to chart: {chart.unplotted} parameter point{chart.unplotted === 1 ? '' : 's'} without a loss ledger (none of its runs summarized, masked or dropped a turn, so no fact was measured). The rows below still open their variants.
      </div>
    );
  }
  return (
    <div className="sweep-chart" data-testid="sweep-chart" data-points={chart.points.length} data-front={chart.front.length}>
      <div className="sweep-readout small mono" data-testid="sweep-readout">
        {shown ? (
          <>
            <b>{shown.label}</b> · {costText(sweep, shown.cost)} · fact ledger {pctText(shown.retentionPct)} kept · text-level {pctText(shown.textRetentionPct)} · {shown.rows.length} session{shown.rows.length === 1 ? '' : 's'}
            {shown.onFront ? <span className="chip sweep-front-chip">Pareto front</span> : null} · click to open its variant
          </>
        ) : (
          <span className="muted">
            {chart.points.length} parameter points, {chart.front.length} on the Pareto front (the line){chart.unplotted > 0 ? `; ${chart.unplotted} without a ledger not shown` : ''}. Hover a point for its parameters; click it to open its variant.
          </span>
        )}
      </div>
      <div className="sweep-plot">
        <UPlotChart makeOptions={makeOptions} optionsKey={`${sweep.id}:${chart.points.length}`} data={data} onCursor={setHover} onClick={onClick} minHeight={200} />
      </div>
    </div>
  );
});

function RowsTable({ detail, rows }: { detail: SweepDetail; rows: readonly SweepRow[] }) {
  const { sweep } = detail;
  return (
    <table className="sweep-rows small" data-testid="sweep-rows">
      <thead>
        <tr>
          <th>session</th>
          <th>parameters</th>
          <th className="num">{sweep.kind === 'replay' ? 'cost' : 'tokens after'}</th>
          <th className="num">{sweep.kind === 'replay' ? 'firings' : 'summaries'}</th>
          <th className="num" title="Fact ledger: facts of the compacted spans kept">fact ret.</th>
          <th className="num" title="Text-level: the compacted spans' paths, identifiers, numbers and commands found as written in what the model receives">text ret.</th>
          <th>run</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => {
          const cost = sweepCost(r);
          return (
            <tr key={r.index} className="sweep-row" data-testid={`sweep-row-${r.index}`} onClick={() => openRow(sweep, r)} title="Open this variant">
              <td className="num">{r.sessionId}</td>
              <td className="mono">{pointLabel(r.params)}</td>
              <td className="num">{cost === null ? '—' : costText(sweep, cost)}</td>
              <td className="num">{formatInt(r.replay ? r.replay.firings : (r.pass?.summaries ?? 0))}</td>
              <td className="num">{pctText(r.retentionPct)}</td>
              <td className="num" data-testid={`sweep-row-text-${r.index}`}>{pctText(r.textRetentionPct)}</td>
              <td>
                #{r.runId} {r.status}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export const SweepsPanel = memo(function SweepsPanel({ sessionId }: { sessionId: number | null }) {
  const sweeps = useSweeps();
  const [picked, setPicked] = useState<number | null>(null);
  // One session's points, or (null) every session summed.
  const [scope, setScope] = useState<'all' | 'current'>('all');
  const list = sweeps.data ?? [];
  const sweepId = picked !== null && list.some((s) => s.id === picked) ? picked : (list[0]?.id ?? null);
  const detail = useSweep(sweepId);
  const d = detail.data && detail.data.sweep.id === sweepId ? detail.data : null;
  const covers = d !== null && sessionId !== null && d.rows.some((r) => r.sessionId === sessionId);
  const chartSession = scope === 'current' && covers ? sessionId : null;
  const chart = useMemo(() => (d ? sweepChart(d.rows, chartSession) : null), [d, chartSession]);
  const rows = useMemo(() => (d ? (chartSession === null ? d.rows : d.rows.filter((r) => r.sessionId === chartSession)) : []), [d, chartSession]);

  if (sweeps.isLoading) return <div className="empty-state">Loading sweeps…</div>;
  if (list.length === 0) {
    return (
      <div className="empty-state" data-testid="sweeps-empty">
        <div>No sweep yet. A sweep runs a grid of parameters over sessions from the command line and shows here:</div>
        <code className="mono small">compaction-studio sweep --strategy dag --grid freshTailCount=8,16,32 --grid leafChunkTokens=10000,20000 --replay</code>
      </div>
    );
  }
  return (
    <div className="sweeps-panel" data-testid="sweeps-panel">
      <div className="sweeps-toolbar">
        <label className="small">
          Sweep{' '}
          <select data-testid="sweep-select" value={sweepId ?? ''} onChange={(e) => setPicked(Number(e.target.value))}>
            {list.map((s) => (
              <option key={s.id} value={s.id}>
                {sweepTitle(s)}
              </option>
            ))}
          </select>
        </label>
        <label className="small" title={covers ? '' : 'The sweep has no point on the selected session'}>
          Points{' '}
          <select data-testid="sweep-scope" value={chartSession === null ? 'all' : 'current'} disabled={!covers} onChange={(e) => setScope(e.target.value as 'all' | 'current')}>
            <option value="all">summed over the sweep&apos;s sessions</option>
            <option value="current">this session only</option>
          </select>
        </label>
      </div>
      {d && chart ? (
        <>
          <SweepChartView sweep={d.sweep} chart={chart} sessionId={sessionId} />
          <RowsTable detail={d} rows={rows} />
        </>
      ) : (
        <div className="empty-state">Loading the sweep…</div>
      )}
    </div>
  );
});
