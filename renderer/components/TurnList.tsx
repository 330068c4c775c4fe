/**
 * The session's turns as a virtualized list that stays smooth at 100,000 turns: the row
 * count comes from the session (so the first rows paint before the metas arrive), full
 * turns are paged in with listTurns only for the rows in view, and everything drawn on the
 * list (boundaries, chunks, summary coverage, the selected node's turns) is looked up per
 * visible row by binary search.
 */
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ExternalCompactionInfo } from '../../shared/contract.js';
import { TURN_PAGE_SIZE, useSessionDetail, useTurnPages } from '../api/queries.js';
import { formatCompact, formatInt } from '../format.js';
import { boundariesByPosition, chunkSpans, coveringSummaries, protectedBoundary, rangeIndexAt } from '../plan/lookup.js';
import type { Workbench } from '../plan/use-workbench.js';
import { recordPlanCommit, recordTurnListFirstPaint } from '../perf.js';
import { actions, useStudio } from '../state/store.js';
import { selectionRange } from './selection.js';
import { TurnRow, type RowLane } from './TurnRow.js';

const ROW_HEIGHT = 30;
const MARKER_HEIGHT = 24;
const EXPANDED_ESTIMATE = 240;

export const TurnList = memo(function TurnList({ wb }: { wb: Workbench }) {
  const sessionId = wb.session?.id ?? null;
  const turnCount = wb.columns ? wb.columns.ids.length : (wb.session?.turns ?? 0);
  const detail = useSessionDetail(wb.listReady ? sessionId : null);
  const expanded = useStudio((s) => s.expanded);
  const selection = useStudio((s) => s.selection);
  const scrollRequest = useStudio((s) => s.scrollRequest);
  const focusedPosition = useStudio((s) => s.focusedPosition);

  const markers = useMemo(() => boundariesByPosition(wb.plan), [wb.plan]);
  const protectedB = useMemo(() => protectedBoundary(wb.plan), [wb.plan]);
  const spans = useMemo(() => chunkSpans(wb.plan), [wb.plan]);
  const covering = useMemo(() => coveringSummaries(wb.summaries), [wb.summaries]);
  const externalsByPosition = useMemo(() => {
    const map = new Map<number, ExternalCompactionInfo[]>();
    for (const e of detail.data?.externalCompactions_ ?? []) {
      const list = map.get(e.boundaryPosition);
      if (list) list.push(e);
      else map.set(e.boundaryPosition, [e]);
    }
    return map;
  }, [detail.data]);
  const highlight = useMemo(() => selectionRange(selection, { plan: wb.plan, summaries: wb.summaries }, detail.data?.externalCompactions_), [selection, wb.plan, wb.summaries, detail.data]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const estimateSize = useCallback(
    (index: number) => {
      let h = ROW_HEIGHT;
      h += (markers.get(index)?.length ?? 0) * MARKER_HEIGHT + (externalsByPosition.get(index)?.length ?? 0) * MARKER_HEIGHT;
      if (index === turnCount - 1) h += (markers.get(turnCount)?.length ?? 0) * MARKER_HEIGHT;
      if (expanded.has(index)) h += EXPANDED_ESTIMATE;
      return h;
    },
    [markers, externalsByPosition, expanded, turnCount],
  );
  const virtualizer = useVirtualizer({
    count: turnCount,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    overscan: 10,
  });

  // Scroll back to the top when another session opens.
  useLayoutEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [sessionId]);

  // Bring requested turns into view (a selected DAG node's first source turn, a search hit).
  // Only on a new request (each carries a nonce), not on every render.
  useEffect(() => {
    if (scrollRequest && scrollRequest.position < turnCount) virtualizer.scrollToIndex(scrollRequest.position, { align: scrollRequest.align });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on a new request only (see above); a changed turnCount must not scroll again
  }, [scrollRequest]);

  // When a parameter moves the protected-tail boundary out of sight, follow it: the user
  // is moving it to see where it lands. A session switch (previous null) does not scroll.
  const lastProtected = useRef<{ sessionId: number | null; position: number | null }>({ sessionId: null, position: null });
  useEffect(() => {
    const pos = protectedB?.position ?? null;
    const prev = lastProtected.current;
    lastProtected.current = { sessionId, position: pos };
    if (pos === null || prev.sessionId !== sessionId || prev.position === null || prev.position === pos) return;
    const index = Math.min(pos, turnCount - 1);
    const items = virtualizer.getVirtualItems();
    if (items.length === 0) return;
    const visibleFirst = items[0].index + 2;
    const visibleLast = items[items.length - 1].index - 2;
    if (index < visibleFirst || index > visibleLast) virtualizer.scrollToIndex(index, { align: 'center' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- follows the boundary's moves only, not every new turn count or virtualizer
  }, [protectedB?.position, sessionId]);

  const items = virtualizer.getVirtualItems();
  // The pages in view change only when the first or last visible row does.
  const pages = useMemo(() => {
    const set = new Set<number>();
    for (const it of items) set.add(Math.floor(it.index / TURN_PAGE_SIZE));
    return [...set].sort((a, b) => a - b);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the first and last visible row (see above), not the new items array of every render
  }, [items.length > 0 ? items[0].index : -1, items.length > 0 ? items[items.length - 1].index : -1]);
  const turnPages = useTurnPages(sessionId, pages);

  const onToggle = useCallback((position: number) => actions.toggleExpanded(position), []);
  const onSelectExternal = useCallback((id: number) => {
    actions.select({ kind: 'external', externalId: id });
    actions.setTab('dag');
  }, []);

  useEffect(() => {
    if (wb.plan) recordPlanCommit();
  }, [wb.plan]);

  const anyRowLoaded = items.some((it) => turnPages.get(Math.floor(it.index / TURN_PAGE_SIZE)));
  useEffect(() => {
    if (anyRowLoaded) recordTurnListFirstPaint();
  }, [anyRowLoaded]);

  if (!wb.session) {
    return <div className="empty-state">Select or import a session to see its turns.</div>;
  }

  const roles = wb.columns?.roles;
  const tokens = wb.columns?.tokens;
  const protectedPos = protectedB?.position ?? Number.POSITIVE_INFINITY;

  return (
    <div className="turn-list">
      <div className="list-header">
        <span className="list-title">
          <b>{formatInt(turnCount)}</b> turns · <b>{formatCompact(wb.session.tokens)}</b> tok
          {wb.plan ? (
            <>
              {' '}· <b>{formatInt(spans.length)}</b> planned
            </>
          ) : null}
          {covering.length > 0 ? (
            <>
              {' '}· <b>{formatInt(covering.length)}</b> summarized
            </>
          ) : null}
        </span>
        <input
          className="goto-turn"
          data-testid="goto-turn"
          type="number"
          min={0}
          max={Math.max(0, turnCount - 1)}
          placeholder="Go to #"
          aria-label="Go to turn"
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            const n = Math.round(Number(e.currentTarget.value));
            if (Number.isFinite(n)) actions.focusTurn(Math.max(0, Math.min(turnCount - 1, n)));
          }}
        />
        <span className="legend">
          <span className="legend-item"><i className="sw sw-span" />planned</span>
          <span className="legend-item"><i className="sw sw-covered" />summarized</span>
          <span className="legend-item"><i className="sw sw-protected" />protected</span>
        </span>
      </div>
      <div className="turn-scroll" ref={scrollRef} data-testid="turn-list">
        <div className="turn-canvas" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const position = item.index;
            const page = turnPages.get(Math.floor(position / TURN_PAGE_SIZE));
            const turn = page?.[position - Math.floor(position / TURN_PAGE_SIZE) * TURN_PAGE_SIZE];
            const spanIdx = rangeIndexAt(spans, position);
            const span = spanIdx >= 0 ? spans[spanIdx] : null;
            const coverIdx = rangeIndexAt(covering, position);
            const lane: RowLane = {
              span: span ? { id: span.id, purpose: span.purpose, odd: spanIdx % 2 === 1, first: span.firstPosition === position && spanIdx > 0, tokens: span.tokens, targetTokens: span.targetTokens } : null,
              coveredBy: coverIdx >= 0 ? covering[coverIdx].id : null,
              protectedTail: position >= protectedPos,
            };
            return (
              <div key={item.key} className="turn-item" data-index={item.index} ref={virtualizer.measureElement} style={{ transform: `translateY(${item.start}px)` }}>
                <TurnRow
                  position={position}
                  role={roles?.[position]}
                  tokens={tokens?.[position]}
                  turn={turn}
                  boundaries={markers.get(position)}
                  protectedBoundary={markers.has(position) || (position === turnCount - 1 && markers.has(turnCount)) ? protectedB : null}
                  turnCount={turnCount}
                  externals={externalsByPosition.get(position)}
                  lane={lane}
                  highlighted={highlight !== null && position >= highlight.first && position <= highlight.last}
                  expanded={expanded.has(position)}
                  focused={position === focusedPosition}
                  trailing={position === turnCount - 1 && markers.has(turnCount) ? { boundaries: markers.get(turnCount) } : undefined}
                  onToggle={onToggle}
                  onSelectExternal={onSelectExternal}
                />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
});
