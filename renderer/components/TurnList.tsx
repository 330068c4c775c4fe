/**
 * The session's turns as a virtualized list that stays smooth at 100,000 turns: the row
 * count comes from the session (so the first rows paint before the metas arrive), full
 * turns are paged in with listTurns only for the rows in view, and everything drawn on the
 * list (boundaries, chunks, summary coverage, the selected node's turns) is looked up per
 * visible row by binary search. What is drawn: use-turn-list-model.ts; where the list
 * scrolls by itself: use-turn-list-follow.ts; the header: TurnListHeader.tsx.
 */
import { memo, useCallback, useEffect, useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { TURN_PAGE_SIZE, useTurnPages } from '../api/queries.js';
import { rangeIndexAt } from '../plan/lookup.js';
import type { Workbench } from '../plan/use-workbench.js';
import { recordPlanCommit, recordTurnListFirstPaint } from '../perf.js';
import { actions, useStudio } from '../state/store.js';
import { TurnListHeader } from './TurnListHeader.js';
import { TurnRow, type RowLane } from './TurnRow.js';
import { useTurnListFollow } from './use-turn-list-follow.js';
import { useTurnListModel } from './use-turn-list-model.js';

/**
 * Keyboard in the list: the list itself is the one Tab stop (rows are not, so Tab leaves
 * the list instead of walking hundreds of rows); ArrowUp/ArrowDown move between rows,
 * Escape goes from a row back to the list and from the list on to the strategy panel.
 */
function onTurnListKey(e: React.KeyboardEvent<HTMLDivElement>, list: HTMLDivElement | null): void {
  if (!list) return;
  const heads = () => [...list.querySelectorAll<HTMLElement>('.turn-row > .turn-head')];
  const current = (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('.turn-row > .turn-head') ?? null;
  if (e.key === 'Escape') {
    e.preventDefault();
    if (current) list.focus();
    else document.getElementById('strategy-select')?.focus();
    return;
  }
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  if (current && document.activeElement !== current) return; // inside an opened turn's details
  e.preventDefault();
  const all = heads();
  if (all.length === 0) return;
  if (!current) {
    // From the list: the first row whose top is in view.
    const top = list.getBoundingClientRect().top;
    (all.find((h) => h.getBoundingClientRect().bottom > top) ?? all[0]).focus();
    return;
  }
  const i = all.indexOf(current);
  const next = all[e.key === 'ArrowDown' ? Math.min(all.length - 1, i + 1) : Math.max(0, i - 1)];
  next.focus();
  next.scrollIntoView({ block: 'nearest' });
}

const ROW_HEIGHT = 30;
const MARKER_HEIGHT = 24;
const EXPANDED_ESTIMATE = 240;

export const TurnList = memo(function TurnList({ wb }: { wb: Workbench }) {
  const { sessionId, turnCount, markers, protectedB, spans, covering, externalsByPosition, highlight } = useTurnListModel(wb);
  const expanded = useStudio((s) => s.expanded);
  const focusedPosition = useStudio((s) => s.focusedPosition);

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
  useTurnListFollow(virtualizer, scrollRef, { sessionId, turnCount, protectedPosition: protectedB?.position ?? null });

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

  const onListKeyDown = useCallback((e: React.KeyboardEvent<HTMLDivElement>) => onTurnListKey(e, scrollRef.current), []);

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
      <TurnListHeader turnCount={turnCount} tokens={wb.session.tokens} planned={wb.plan ? spans.length : null} applied={wb.planApplied} summarized={covering.length} />
      <div className="turn-scroll" ref={scrollRef} data-testid="turn-list" tabIndex={0} role="list" aria-label="Turns: arrow keys move between turns, Enter opens one, Escape leaves the list" onKeyDown={onListKeyDown}>
        <div className="turn-canvas" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const position = item.index;
            const page = turnPages.get(Math.floor(position / TURN_PAGE_SIZE));
            const turn = page?.[position - Math.floor(position / TURN_PAGE_SIZE) * TURN_PAGE_SIZE];
            const spanIdx = rangeIndexAt(spans, position);
            const span = spanIdx >= 0 ? spans[spanIdx] : null;
            const coverIdx = rangeIndexAt(covering, position);
            const lane: RowLane = {
              span: span ? { id: span.id, purpose: span.purpose, odd: spanIdx % 2 === 1, first: span.firstPosition === position && spanIdx > 0, tokens: span.tokens, targetTokens: span.targetTokens, applied: wb.planApplied } : null,
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
