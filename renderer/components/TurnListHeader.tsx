/** The turn list's header: counts (turns, tokens, planned chunks, summaries), go-to-turn and the lane legend. */
import { memo } from 'react';
import { formatCompact, formatInt } from '../format.js';
import { actions } from '../state/store.js';

export const TurnListHeader = memo(function TurnListHeader({ turnCount, tokens, planned, summarized }: { turnCount: number; tokens: number; planned: number | null; summarized: number }) {
  return (
    <div className="list-header">
      <span className="list-title">
        <b>{formatInt(turnCount)}</b> turns · <b>{formatCompact(tokens)}</b> tok
        {planned !== null ? (
          <>
            {' '}· <b>{formatInt(planned)}</b> planned
          </>
        ) : null}
        {summarized > 0 ? (
          <>
            {' '}· <b>{formatInt(summarized)}</b> summarized
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
  );
});
