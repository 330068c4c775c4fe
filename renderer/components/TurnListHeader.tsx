/** The turn list's header: counts (turns, tokens, planned chunks, summaries), go-to-turn and the lane legend. */
import { memo } from 'react';
import { formatCompact, formatInt } from '../format.js';
import { actions } from '../state/store.js';

/** Every colour a row can carry (its lane, its background), named once. */
const LEGEND: Array<{ swatch: string; label: string; title: string }> = [
  { swatch: 'sw-span', label: 'to summarize', title: 'A chunk the plan would summarize (alternating shades tell neighbouring chunks apart)' },
  { swatch: 'sw-mask', label: 'masked', title: 'Tool results replaced by a placeholder (observation masking): planned, or done by the last pass' },
  { swatch: 'sw-drop', label: 'dropped', title: 'Turns the model no longer sees (window, forgetting): planned, or done by the last pass' },
  { swatch: 'sw-covered', label: 'summarized', title: "Covered by one of the variant's stored summaries" },
  { swatch: 'sw-protected', label: 'protected', title: 'The protected tail: never summarized' },
  { swatch: 'sw-selected', label: 'selected', title: 'Turns of the selected DAG node or compaction' },
];

export const TurnListHeader = memo(function TurnListHeader({ turnCount, tokens, planned, applied, summarized }: { turnCount: number; tokens: number; planned: number | null; applied: boolean; summarized: number }) {
  return (
    <>
    <div className="list-header">
      <span className="list-title">
        <b>{formatInt(turnCount)}</b> turns · <b>{formatCompact(tokens)}</b> tok
        {planned !== null ? (
          <>
            {' '}· <b>{formatInt(planned)}</b> {applied ? 'applied' : 'planned'}
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
    </div>
    <div className="legend list-legend" data-testid="turn-legend" aria-label="Row colours">
      {LEGEND.map((l) => (
        <span key={l.swatch} className="legend-item" title={l.title}>
          <i className={`sw ${l.swatch}`} />
          {l.label}
        </span>
      ))}
    </div>
    </>
  );
});
