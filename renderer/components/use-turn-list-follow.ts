/**
 * Where the turn list scrolls by itself: to the top when another session opens, to a
 * requested turn (a selected DAG node's first source turn, a search hit), and after the
 * protected-tail boundary when a parameter moves it out of sight.
 */
import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';
import type { Virtualizer } from '@tanstack/react-virtual';
import { useStudio } from '../state/store.js';

export function useTurnListFollow(
  virtualizer: Virtualizer<HTMLDivElement, Element>,
  scrollRef: RefObject<HTMLDivElement | null>,
  { sessionId, turnCount, protectedPosition }: { sessionId: number | null; turnCount: number; protectedPosition: number | null },
): void {
  const scrollRequest = useStudio((s) => s.scrollRequest);

  // Scroll back to the top when another session opens.
  useLayoutEffect(() => {
    scrollRef.current?.scrollTo({ top: 0 });
  }, [sessionId, scrollRef]);

  // Bring requested turns into view. Only on a new request (each carries a nonce), not on every render.
  useEffect(() => {
    if (scrollRequest && scrollRequest.position < turnCount) virtualizer.scrollToIndex(scrollRequest.position, { align: scrollRequest.align });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on a new request only (see above); a changed turnCount must not scroll again
  }, [scrollRequest]);

  // When a parameter moves the protected-tail boundary out of sight, follow it: the user
  // is moving it to see where it lands. A session switch (previous null) does not scroll.
  const lastProtected = useRef<{ sessionId: number | null; position: number | null }>({ sessionId: null, position: null });
  useEffect(() => {
    const pos = protectedPosition;
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
  }, [protectedPosition, sessionId]);
}
