/**
 * The runs of the current variant, newest first: status, duration, the pass's stats,
 * and its recorded events (compaction_started / _completed / _failed ...) on demand.
 */
import { memo, useState } from 'react';
import type { RunInfo } from '../../shared/contract.js';
import { useRuns } from '../api/queries.js';
import { formatDuration, formatInt, formatTime } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';

/** The stats worth a column; the rest show when the run is opened. */
const HEADLINE_STATS = ['summarizerCalls', 'cacheHits', 'tokensBefore', 'tokensAfter', 'leafSummariesCreated', 'condensedSummariesCreated', 'turnsCompacted'];

function statValue(v: unknown): string {
  if (typeof v === 'number') return formatInt(v);
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

function durationOf(run: RunInfo): string {
  if (!run.endedAt) return 'running';
  const ms = new Date(run.endedAt).getTime() - new Date(run.startedAt).getTime();
  return Number.isFinite(ms) ? formatDuration(ms) : '—';
}

const RunRow = memo(function RunRow({ run }: { run: RunInfo }) {
  const [open, setOpen] = useState(false);
  const headline = HEADLINE_STATS.filter((k) => k in run.stats);
  return (
    <li className={`run run-${run.status}`} data-testid="run-item" data-status={run.status}>
      <button type="button" className="run-head" onClick={() => setOpen(!open)} aria-expanded={open}>
        <span className="chevron" aria-hidden="true">{open ? '▾' : '▸'}</span>
        <span className="mono">#{run.id}</span>
        <span className={`chip chip-status status-${run.status}`}>{run.status}</span>
        <span className="muted">{formatTime(run.startedAt)}</span>
        <span className="muted">{durationOf(run)}</span>
      </button>
      {headline.length > 0 ? (
        <div className="run-stats">
          {headline.map((k) => (
            <span key={k} className="stat">
              <span className="stat-name">{k}</span> <b className="mono">{statValue(run.stats[k])}</b>
            </span>
          ))}
        </div>
      ) : null}
      {run.error ? <div className="run-error">{run.error}</div> : null}
      {open ? (
        <div className="run-body">
          <div className="run-section-title">Stats</div>
          <pre className="mono">{JSON.stringify(run.stats, null, 2)}</pre>
          <div className="run-section-title">Parameters</div>
          <pre className="mono">{JSON.stringify(run.params, null, 2)}</pre>
          <div className="run-section-title">Events ({run.events.length})</div>
          <ol className="run-events">
            {run.events.map((e, i) => (
              <li key={i}>
                <span className="muted mono">{formatTime(e.at)}</span> <b>{e.kind}</b> <span className="mono muted">{Object.keys(e.data).length > 0 ? JSON.stringify(e.data) : ''}</span>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </li>
  );
});

export const RunsPanel = memo(function RunsPanel({ wb }: { wb: Workbench }) {
  const runs = useRuns(wb.variant?.id ?? null);
  if (!wb.session) return <div className="empty-state">Select a session.</div>;
  if (wb.draft) return <div className="empty-state" data-testid="runs-draft">Draft parameters: no variant has them yet. Compact, Replay or Save (Variants tab) makes one.</div>;
  if (!wb.variant) return <div className="empty-state">Looking up the variant…</div>;
  const list = [...(runs.data ?? [])].sort((a, b) => b.id - a.id);
  return (
    <div className="runs-panel" data-testid="runs-panel">
      <div className="runs-head muted small">
        Variant <b>#{wb.variant.id}</b>{wb.variant.name ? <> “{wb.variant.name}”</> : null} · {wb.variant.strategy} · {wb.variant.summarizer.kind}
        {wb.variant.summarizer.model ? ` (${wb.variant.summarizer.model})` : ''} · prompt {wb.variant.summarizer.promptVersion} · {formatInt(wb.variant.summaries)} summaries
      </div>
      {list.length === 0 ? <div className="empty-state">No runs of this variant yet. Press Compact (Ctrl+Enter).</div> : null}
      <ul className="runs">
        {list.map((r) => (
          <RunRow key={r.id} run={r} />
        ))}
      </ul>
    </div>
  );
});
