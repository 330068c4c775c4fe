/**
 * The variant table of the selected session (issue 8 §1): every variant the user owns
 * (run, summarized or saved; drafts are not variants), with what its runs add up to.
 * Click a row to load it (strategy + parameters: its DAG, context and runs show); tick
 * 2–4 rows and press Compare; rename inline; duplicate as a draft (parameters only,
 * nothing created); delete (with its runs and summaries, after a second click).
 * Rows are plain props of memoized components: 200 variants paint in one frame
 * (`window.__studioPerf.variantTablePaint`, measured by test/e2e/variants.spec.ts).
 */
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { RetentionCategory, VariantListing } from '../../shared/contract.js';
import { STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import { paramsAwayFromDefaults } from '../../shared/strategies/params.js';
import { keys, useApi, useVariantList } from '../api/queries.js';
import { formatCompact, formatInt, formatTime, formatUsd } from '../format.js';
import type { StudioCommands } from '../hooks/use-studio-actions.js';
import { recordVariantTablePaint } from '../perf.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions, studioStore, useStudio } from '../state/store.js';
import { formatParamValue } from './ParamSlider.js';

/** The Compare view takes two to four variants. */
export const COMPARE_MIN = 2;
export const COMPARE_MAX = 4;

const RETENTION_ORDER: readonly RetentionCategory[] = ['path', 'command', 'error', 'identifier', 'number', 'request', 'todo'];

/** "72%" of every fact kept over all categories, with the per-category figures as a tooltip; "—" until the ledger computed it. */
function retentionCell(r: VariantListing['retention']): { text: string; title: string } {
  if (!r) return { text: '—', title: 'Not computed yet (the loss ledger fills this column)' };
  let kept = 0;
  let total = 0;
  const lines: string[] = [];
  for (const c of RETENTION_ORDER) {
    const x = r[c];
    if (!x) continue;
    kept += x.kept;
    total += x.total;
    lines.push(`${c}: ${x.kept}/${x.total}`);
  }
  return { text: total === 0 ? '—' : `${Math.round((kept / total) * 100)}%`, title: lines.join('\n') || 'no facts in the compacted spans' };
}

function paramsText(v: VariantListing): string {
  const specs = STRATEGY_DEFINITIONS[v.strategy]?.specs ?? [];
  const changed = paramsAwayFromDefaults(specs, v.params);
  return changed.length === 0 ? 'defaults' : changed.map(({ spec, value }) => `${spec.name} ${formatParamValue(spec, value)}`).join(', ');
}

const summarizerText = (v: VariantListing) => (v.summarizer.kind === 'openai' ? (v.summarizer.model ?? 'openai') : v.summarizer.kind);
const dash = (n: number | null, f: (x: number) => string = formatInt) => (n === null ? '—' : f(n));

interface RowProps {
  v: VariantListing;
  current: boolean;
  ticked: boolean;
  tickDisabled: boolean;
  onLoad(v: VariantListing): void;
  onTick(id: number, on: boolean): void;
  onRename(id: number, name: string): void;
  onDuplicate(v: VariantListing): void;
  onDelete(id: number): void;
}

const NameCell = memo(function NameCell({ id, name, onRename }: { id: number; name: string | null; onRename(id: number, name: string): void }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(name ?? '');
  if (!editing) {
    return (
      <button
        type="button"
        className={`variant-name${name ? '' : ' unnamed'}`}
        data-testid={`variant-name-${id}`}
        title="Rename"
        onClick={(e) => {
          e.stopPropagation();
          setText(name ?? '');
          setEditing(true);
        }}
      >
        {name ?? `#${id}`}
      </button>
    );
  }
  const commit = () => {
    setEditing(false);
    if (text.trim() !== (name ?? '')) onRename(id, text);
  };
  return (
    <input
      className="variant-name-input"
      data-testid={`variant-name-input-${id}`}
      value={text}
      maxLength={200}
      autoFocus
      aria-label={`Name of variant ${id}`}
      onClick={(e) => e.stopPropagation()}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit();
        else if (e.key === 'Escape') setEditing(false);
      }}
    />
  );
});

const VariantRow = memo(function VariantRow({ v, current, ticked, tickDisabled, onLoad, onTick, onRename, onDuplicate, onDelete }: RowProps) {
  const [confirming, setConfirming] = useState(false);
  const retention = retentionCell(v.retention);
  const params = paramsText(v);
  return (
    <tr className={`variant-row${current ? ' current' : ''}`} data-testid={`variant-row-${v.id}`} data-variant-id={v.id} onClick={() => onLoad(v)} title="Load this variant (strategy and parameters)">
      <td onClick={(e) => e.stopPropagation()}>
        <input type="checkbox" data-testid={`variant-tick-${v.id}`} aria-label={`Compare variant ${v.id}`} checked={ticked} disabled={!ticked && tickDisabled} onChange={(e) => onTick(v.id, e.target.checked)} />
      </td>
      <td className="name-cell">
        <NameCell id={v.id} name={v.name} onRename={onRename} />
      </td>
      <td>{v.strategy}</td>
      <td className="params-cell" title={params}>
        {params}
      </td>
      <td>{summarizerText(v)}</td>
      <td className="num">{formatInt(v.runs)}</td>
      <td className="num">{dash(v.firings)}</td>
      <td className="num">{dash(v.tokensSent, formatCompact)}</td>
      <td className="num">{dash(v.summarizerCalls)}</td>
      <td className="num">{formatUsd(v.costUsd)}</td>
      <td className="num" title={retention.title} data-testid={`variant-retention-${v.id}`}>
        {retention.text}
      </td>
      <td className="last-run">{v.lastRun ? `${formatTime(v.lastRun.at)} · ${v.lastRun.kind} ${v.lastRun.status}` : '—'}</td>
      <td className="row-actions" onClick={(e) => e.stopPropagation()}>
        <button type="button" className="btn btn-small btn-ghost" data-testid={`variant-duplicate-${v.id}`} title="Load its parameters as a draft (nothing is created until you run or save)" onClick={() => onDuplicate(v)}>
          Duplicate
        </button>
        {confirming ? (
          <button type="button" className="btn btn-small btn-danger" data-testid={`variant-delete-confirm-${v.id}`} onBlur={() => setConfirming(false)} onClick={() => onDelete(v.id)}>
            Delete {formatInt(v.runs)} runs, {formatInt(v.summaries)} summaries?
          </button>
        ) : (
          <button type="button" className="btn btn-small btn-ghost" data-testid={`variant-delete-${v.id}`} title="Delete the variant with its runs and summaries (the session's turns are never touched)" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </td>
    </tr>
  );
});

export const VariantsPanel = memo(function VariantsPanel({ wb, commands }: { wb: Workbench; commands: StudioCommands }) {
  const sessionId = wb.session?.id ?? null;
  const api = useApi();
  const client = useQueryClient();
  const list = useVariantList(sessionId);
  const ticked = useStudio((s) => s.compareVariantIds);
  const tickedSet = useMemo(() => new Set(ticked), [ticked]);
  const rows = list.data;

  // Data → paint: from the render that receives a new list to the frame that shows it.
  const dataSeen = useRef<unknown>(null);
  const renderStart = useRef(0);
  if (rows && dataSeen.current !== rows) {
    dataSeen.current = rows;
    renderStart.current = performance.now();
  }
  useLayoutEffect(() => {
    if (rows) recordVariantTablePaint(rows.length, renderStart.current);
  }, [rows]);

  const refresh = useCallback(() => {
    if (sessionId === null) return;
    void client.invalidateQueries({ queryKey: keys.variants(sessionId) });
    void client.invalidateQueries({ queryKey: ['variant', sessionId] });
  }, [client, sessionId]);

  const onLoad = useCallback((v: VariantListing) => actions.loadVariant(v), []);
  const onDuplicate = useCallback((v: VariantListing) => {
    actions.loadVariant(v, true);
    actions.notify({ kind: 'info', title: `Variant ${v.name ?? `#${v.id}`} loaded as a draft`, message: 'Change a parameter, then Compact, Replay or Save to make a new variant.' });
  }, []);
  const onTick = useCallback((id: number, on: boolean) => {
    const now = studioStore.getState().compareVariantIds;
    actions.setCompareVariantIds(on ? [...now.filter((x) => x !== id), id].slice(-COMPARE_MAX) : now.filter((x) => x !== id));
  }, []);
  const onRename = useCallback(
    (id: number, name: string) => {
      api.renameVariant({ variantId: id, name }).then(refresh, (err: Error) => actions.notify({ kind: 'error', title: 'Could not rename the variant', message: err.message }));
    },
    [api, refresh],
  );
  const onDelete = useCallback(
    (id: number) => {
      api.deleteVariant({ variantId: id }).then(
        () => {
          const s = studioStore.getState();
          actions.setCompareVariantIds(s.compareVariantIds.filter((x) => x !== id));
          if (s.loadedVariantId === id) studioStore.set({ loadedVariantId: null });
          refresh();
          if (sessionId !== null) void client.invalidateQueries({ queryKey: keys.sessionReplays(sessionId) });
          actions.notify({ kind: 'success', title: `Deleted variant #${id}` });
        },
        (err: Error) => actions.notify({ kind: 'error', title: 'Could not delete the variant', message: err.message }),
      );
    },
    [api, client, refresh, sessionId],
  );

  if (!wb.session) return <div className="empty-state">Select a session.</div>;
  const compareReady = ticked.length >= COMPARE_MIN && ticked.length <= COMPARE_MAX;
  return (
    <div className="variants-panel" data-testid="variants-panel" data-count={rows?.length ?? ''}>
      <div className="variants-toolbar">
        <span className="muted small">
          {rows ? `${formatInt(rows.length)} variant${rows.length === 1 ? '' : 's'}` : 'Loading…'} ·{' '}
          {wb.variant ? (
            <>
              on screen: <b>{wb.variant.name ?? `#${wb.variant.id}`}</b>
            </>
          ) : wb.draft ? (
            <span data-testid="variants-draft">on screen: a draft (not saved)</span>
          ) : (
            'looking up…'
          )}
        </span>
        <span className="spacer" />
        <button type="button" className="btn btn-small" data-testid="variant-save" disabled={!wb.draft} title="Save the parameters on screen as a variant without running it" onClick={() => void commands.saveCurrent()}>
          Save draft
        </button>
        <button type="button" className="btn btn-small btn-primary" data-testid="variant-compare" disabled={!compareReady} title={`Compare ${COMPARE_MIN}–${COMPARE_MAX} ticked variants side by side`} onClick={() => actions.setTab('compare')}>
          Compare{ticked.length > 0 ? ` (${ticked.length})` : ''}
        </button>
      </div>
      {list.error ? <div className="empty-state error-text">Cannot list the variants: {(list.error as Error).message}</div> : null}
      {rows && rows.length === 0 ? <div className="empty-state">No variants yet. Moving the sliders makes a draft; Compact, Replay or Save draft makes a variant.</div> : null}
      {rows && rows.length > 0 ? (
        <div className="variants-scroll">
          <table className="variants-table" data-testid="variants-table">
            <thead>
              <tr>
                <th aria-label="Compare" />
                <th>Name</th>
                <th>Strategy</th>
                <th>Parameters</th>
                <th>Summarizer</th>
                <th className="num">Runs</th>
                <th className="num" title="Firings of the latest replay">Firings</th>
                <th className="num" title="Prompt tokens sent over every model call of the latest replay">Tokens sent</th>
                <th className="num" title="Summarizer calls of the latest replay">Summ. calls</th>
                <th className="num" title="Cost of the latest replay: model calls with caching + summarizer">Cost</th>
                <th className="num" title="Facts of the compacted spans kept by the summaries (loss ledger)">Retention</th>
                <th>Last run</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {rows.map((v) => (
                <VariantRow
                  key={v.id}
                  v={v}
                  current={wb.variant?.id === v.id}
                  ticked={tickedSet.has(v.id)}
                  tickDisabled={ticked.length >= COMPARE_MAX}
                  onLoad={onLoad}
                  onTick={onTick}
                  onRename={onRename}
                  onDuplicate={onDuplicate}
                  onDelete={onDelete}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
});
