/**
 * The variant table of the selected session: every variant the user owns
 * (run, summarized or saved; drafts are not variants), with what its runs add up to.
 * Click a row to load it (strategy + parameters: its DAG, context and runs show); tick
 * 2–4 rows and press Compare; rename inline; duplicate as a draft (parameters only,
 * nothing created); delete (with its runs and summaries, after a second click).
 * Rows are virtualized (@tanstack/react-virtual, as the turn list): only the rows in view
 * and a few more are in the DOM, between two spacer rows, so 200 variants cost what ~30 do
 * (`window.__studioPerf.variantTablePaint`, measured by test/e2e/variants.spec.ts). Fixed
 * row height and column widths (`table-layout: fixed`) keep the columns from jumping as rows
 * come and go; the header stays sticky; the row holding the focus (an inline rename, a
 * delete confirmation) stays mounted while it is scrolled away, so Tab and the edit survive.
 * Columns: the most useful first (name, strategy, parameters, cost, retention), the name
 * pinned on the left when the table scrolls sideways in a narrow pane.
 */
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import type { RetentionCategory, VariantListing } from '../../shared/contract.js';
import { TEXT_STRING_KINDS } from '../../shared/retention/text.js';
import { probeScoreLabel } from '../../shared/probes/types.js';
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

/** The text-level score beside it (shared/retention/text.ts): "41%" with kept/total and what each kind kept as a tooltip. */
function textRetentionCell(r: VariantListing['textRetention']): { text: string; title: string } {
  if (!r) return { text: '—', title: 'Not measured (a ledger stored before the text-level score existed, or no ledger yet)' };
  if (r.total === 0) return { text: '—', title: 'no strings in the compacted spans' };
  const kinds = TEXT_STRING_KINDS.filter((k) => r.byKind[k].total > 0).map((k) => `${k}: ${r.byKind[k].kept}/${r.byKind[k].total}`);
  return { text: `${Math.round((r.kept / r.total) * 100)}%`, title: [`Text-level: ${r.kept}/${r.total} strings of the compacted spans found as written in what the model receives`, ...kinds].join('\n') };
}

function paramsText(v: VariantListing): string {
  const specs = STRATEGY_DEFINITIONS[v.strategy]?.specs ?? [];
  const changed = paramsAwayFromDefaults(specs, v.params);
  return changed.length === 0 ? 'defaults' : changed.map(({ spec, value }) => `${spec.name} ${formatParamValue(spec, value)}`).join(', ');
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatInt(n)} ${n === 1 ? one : many}`;
const summarizerText = (v: VariantListing) => (v.summarizer.kind === 'openai' ? (v.summarizer.model ?? 'openai') : v.summarizer.kind);
const dash = (n: number | null, f: (x: number) => string = formatInt) => (n === null ? '—' : f(n));

/**
 * The table's columns in order, most useful first, with fixed widths (px): a virtualized
 * table lays out only the rows in view, so content-sized columns would jump while scrolling.
 */
const COLUMNS: ReadonlyArray<{ label: string; width: number; className?: string; title?: string }> = [
  { label: '', width: 28, className: 'tick-cell', title: 'Tick 2–4 to compare' },
  { label: 'Name', width: 150, className: 'name-cell' },
  { label: 'Strategy', width: 78 },
  { label: 'Parameters', width: 190 },
  { label: 'Cost', width: 70, className: 'num', title: 'Cost of the latest replay: model calls with caching + summarizer' },
  { label: 'Fact ret.', width: 70, className: 'num', title: 'Fact ledger: facts of the compacted spans kept by the summaries (loss ledger)' },
  { label: 'Probes', width: 76, className: 'num', title: 'Probe evaluation (`evaluate`): mean grade 0–5 of the questions about the compacted span; "judge" = answered and graded by a model, "text" = offline text presence, a weaker check' },
  { label: 'Text ret.', width: 70, className: 'num', title: 'Text-level: the compacted spans\' paths, identifiers, numbers and commands found as written in what the model receives' },
  { label: 'Tokens sent', width: 78, className: 'num', title: 'Prompt tokens sent over every model call of the latest replay' },
  { label: 'Firings', width: 56, className: 'num', title: 'Firings of the latest replay' },
  { label: 'Summ. calls', width: 74, className: 'num', title: 'Summarizer calls of the latest replay' },
  { label: 'Runs', width: 44, className: 'num' },
  { label: 'Summarizer', width: 110 },
  { label: 'Last run', width: 170 },
  { label: '', width: 200, title: 'Duplicate as a draft, delete' },
];
const TABLE_WIDTH = COLUMNS.reduce((sum, c) => sum + c.width, 0);
/** One row's height in px (CSS `.variant-row` has the same): the virtualizer's fixed row size. */
const ROW_HEIGHT = 27;
/** The sticky header row above the first row (CSS `.variants-table thead th`): where the rows start. */
const HEADER_HEIGHT = 27;

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
  const textRetention = textRetentionCell(v.textRetention);
  const params = paramsText(v);
  return (
    <tr className={`variant-row${current ? ' current' : ''}`} data-testid={`variant-row-${v.id}`} data-variant-id={v.id} onClick={() => onLoad(v)} title="Load this variant (strategy and parameters)">
      <td className="tick-cell" onClick={(e) => e.stopPropagation()}>
        <input type="checkbox" data-testid={`variant-tick-${v.id}`} aria-label={`Compare variant ${v.id}`} checked={ticked} disabled={!ticked && tickDisabled} onChange={(e) => onTick(v.id, e.target.checked)} />
      </td>
      <td className="name-cell">
        <NameCell id={v.id} name={v.name} onRename={onRename} />
      </td>
      <td>{v.strategy}</td>
      <td className="params-cell" title={params}>
        {params}
      </td>
      <td className="num">{formatUsd(v.costUsd)}</td>
      <td className="num" title={retention.title} data-testid={`variant-retention-${v.id}`}>
        {retention.text}
      </td>
      <td className="num" title={probeScoreLabel(v.probes)} data-testid={`variant-probes-${v.id}`}>
        {v.probes?.meanScore != null ? `${v.probes.meanScore.toFixed(1)} ${v.probes.mode}` : '—'}
      </td>
      <td className="num" title={textRetention.title} data-testid={`variant-text-retention-${v.id}`}>
        {textRetention.text}
      </td>
      <td className="num">{dash(v.tokensSent, formatCompact)}</td>
      <td className="num">{dash(v.firings)}</td>
      <td className="num">{dash(v.summarizerCalls)}</td>
      <td className="num">{formatInt(v.runs)}</td>
      <td className="summarizer-cell" title={summarizerText(v)}>
        {summarizerText(v)}
      </td>
      <td className="last-run">{v.lastRun ? `${formatTime(v.lastRun.at)} · ${v.lastRun.kind} ${v.lastRun.status}` : '—'}</td>
      <td className="row-actions" onClick={(e) => e.stopPropagation()}>
        {/* The confirmation takes the whole cell (the column is fixed-width). */}
        {confirming ? null : (
          <button type="button" className="btn btn-small btn-ghost" data-testid={`variant-duplicate-${v.id}`} title="Load its parameters as a draft (nothing is created until you run or save)" onClick={() => onDuplicate(v)}>
            Duplicate
          </button>
        )}
        {confirming ? (
          <button
            type="button"
            className="btn btn-small btn-danger"
            data-testid={`variant-delete-confirm-${v.id}`}
            title={`Delete the variant with its ${formatInt(v.runs)} run(s) and ${formatInt(v.summaries)} summaries`}
            autoFocus
            onBlur={() => setConfirming(false)}
            onClick={() => onDelete(v.id)}
          >
            Delete {plural(v.runs, 'run')}, {plural(v.summaries, 'summary', 'summaries')}?
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

  // Virtual rows. The row holding the focus stays rendered (the range grows to include it), so
  // an inline rename or a delete confirmation scrolled out of view keeps its state and focus.
  const scrollRef = useRef<HTMLDivElement>(null);
  const [focusedId, setFocusedId] = useState<number | null>(null);
  const focusedIndex = rows && focusedId !== null ? rows.findIndex((v) => v.id === focusedId) : -1;
  const rangeExtractor = useCallback(
    (range: Range) => {
      const base = defaultRangeExtractor(range);
      if (focusedIndex < 0 || base.length === 0) return base;
      const lo = Math.min(base[0], focusedIndex);
      const hi = Math.max(base[base.length - 1], focusedIndex);
      return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
    },
    [focusedIndex],
  );
  const virtualizer = useVirtualizer({
    count: rows?.length ?? 0,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    rangeExtractor,
    scrollMargin: HEADER_HEIGHT,
    // The first render already fills the pane (the element is measured right after).
    initialRect: { width: 0, height: typeof window === 'undefined' ? 600 : window.innerHeight },
  });
  const items = virtualizer.getVirtualItems();
  // Item offsets count from the scroll element's top (past the header); the spacers from the first row.
  const padTop = items.length > 0 ? items[0].start - HEADER_HEIGHT : 0;
  const padBottom = items.length > 0 ? virtualizer.getTotalSize() - (items[items.length - 1].end - HEADER_HEIGHT) : 0;
  const onFocusRow = useCallback((e: React.FocusEvent<HTMLDivElement>) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('[data-variant-id]');
    setFocusedId(row ? Number(row.dataset.variantId) : null);
  }, []);
  const onBlurRow = useCallback((e: React.FocusEvent<HTMLDivElement>) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setFocusedId(null);
  }, []);

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
        <div className="variants-scroll" ref={scrollRef} onFocus={onFocusRow} onBlur={onBlurRow}>
          <table className="variants-table" data-testid="variants-table" data-rendered={items.length} style={{ minWidth: TABLE_WIDTH }}>
            <colgroup>
              {COLUMNS.map((c, i) => (
                <col key={i} style={{ width: c.width }} />
              ))}
            </colgroup>
            <thead>
              <tr>
                {COLUMNS.map((c, i) => (
                  <th key={i} className={c.className} title={c.title} aria-label={c.label === '' ? c.title : undefined}>
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {padTop > 0 ? (
                <tr className="variant-spacer" aria-hidden="true" style={{ height: padTop }}>
                  <td colSpan={COLUMNS.length} />
                </tr>
              ) : null}
              {items.map((it) => {
                const v = rows[it.index];
                return (
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
                );
              })}
              {padBottom > 0 ? (
                <tr className="variant-spacer" aria-hidden="true" style={{ height: padBottom }}>
                  <td colSpan={COLUMNS.length} />
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
});
