/**
 * What the model would receive for the current variant (the replay): every message with
 * its role, where it comes from (an original turn, a summary, synthetic glue) and its
 * tokens, and the total. Virtualized: an uncompacted 100,000-turn session replays whole.
 */
import { memo, useCallback, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { ReplayMessage, SummaryInfo } from '../../shared/contract.js';
import { useDraftReplay, useReplay } from '../api/queries.js';
import { firstLineOf, formatCompact, formatInt } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions } from '../state/store.js';
import { TurnDetails } from './TurnDetails.js';

function originLabel(m: ReplayMessage): string {
  switch (m.origin.kind) {
    case 'turn':
      return `turn ${m.origin.position}`;
    case 'summary':
      return `summary s${m.origin.summaryId}`;
    case 'synthetic':
      return 'synthetic';
    default: {
      const _exhaustive: never = m.origin;
      return _exhaustive;
    }
  }
}

/** Summary id → the turn positions it covers (through its children), for coverage labels. */
export type SummaryCoverage = ReadonlyMap<number, { first: number; last: number }>;

/**
 * The turns a message really carries: every part of a merged message (the replay merges
 * consecutive same-side items, e.g. a run of summaries, keeping each origin in `parts`),
 * not only the first. The first part's own text ("[Summary of turns 0-6]…") names only
 * itself, so the row labels the whole range. Null for synthetic glue alone.
 */
export function coveredTurns(message: ReplayMessage, coverage: SummaryCoverage | undefined): { first: number; last: number } | null {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const o of message.parts ?? [message.origin]) {
    const range = o.kind === 'turn' ? { first: o.position, last: o.position } : o.kind === 'summary' ? coverage?.get(o.summaryId) : undefined;
    if (!range) continue;
    first = Math.min(first, range.first);
    last = Math.max(last, range.last);
  }
  return first <= last ? { first, last } : null;
}

function partsTitle(message: ReplayMessage): string {
  const parts = message.parts ?? [message.origin];
  return parts.length > 1 ? `${parts.length} items merged into one message: ${parts.map((o) => originLabel({ ...message, origin: o })).join(', ')}` : '';
}

const ContextRow = memo(function ContextRow({ index, message, open, onToggle, coverage }: { index: number; message: ReplayMessage; open: boolean; onToggle(i: number): void; coverage?: SummaryCoverage }) {
  const origin = message.origin;
  const covers = coveredTurns(message, coverage);
  const merged = (message.parts?.length ?? 1) - 1;
  return (
    <div
      className={`context-row origin-${origin.kind}${open ? ' expanded' : ''}`}
      data-testid="context-message"
      data-role={message.role}
      data-origin={origin.kind}
      data-covers={covers ? `${covers.first}-${covers.last}` : undefined}
      data-parts={message.parts?.length ?? 1}
    >
      <div className="turn-head" role="button" tabIndex={0} onClick={() => onToggle(index)} onKeyDown={(e) => e.key === 'Enter' && onToggle(index)}>
        <span className="turn-pos mono">{index}</span>
        <span className={`role-badge role-${message.role}`}>{message.role}</span>
        <span
          className={`chip chip-origin chip-${origin.kind}`}
          onClick={(e) => {
            if (origin.kind === 'turn') {
              e.stopPropagation();
              actions.scrollTo(origin.position);
            } else if (origin.kind === 'summary') {
              e.stopPropagation();
              actions.select({ kind: 'node', nodeId: `s${origin.summaryId}` });
            }
          }}
          title={[origin.kind === 'synthetic' ? 'Added so roles alternate / the summary is framed' : 'Show it', partsTitle(message)].filter(Boolean).join('\n')}
        >
          {originLabel(message)}
          {merged > 0 ? ` +${merged}` : ''}
        </span>
        <span className="turn-text">
          {covers && (origin.kind !== 'turn' || merged > 0) ? (
            <span className="chip chip-covers mono" data-testid="context-covers" title={`This message carries turns ${covers.first}–${covers.last}`}>
              turns {covers.first}–{covers.last}
            </span>
          ) : null}
          {firstLineOf(message.blocks) || <span className="muted">(empty)</span>}
        </span>
        <span className="turn-tokens mono" title={`${formatInt(message.tokens)} tokens`}>{formatCompact(message.tokens)}</span>
      </div>
      {open ? (
        <TurnDetails
          turn={{ id: index, sessionId: 0, position: index, role: message.role, blocks: message.blocks, charCount: 0, tokenCount: message.tokens, timestamp: null, model: null, agentId: null, sourceIds: [] }}
        />
      ) : null}
    </div>
  );
});

/** One empty list while the replay loads, so `byOrigin` below is not recomputed on every render. */
const NO_MESSAGES: ReplayMessage[] = [];

/** The messages of a replay, virtualized, each row opening to its blocks (also the Timeline's context as of a call). */
export const ContextMessages = memo(function ContextMessages({ messages, coverage }: { messages: readonly ReplayMessage[]; coverage?: SummaryCoverage }) {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: messages.length, getScrollElement: () => scrollRef.current, estimateSize: () => 30, overscan: 10 });
  const toggle = useCallback(
    (i: number) =>
      setOpen((prev) => {
        const next = new Set(prev);
        if (next.has(i)) next.delete(i);
        else next.add(i);
        return next;
      }),
    [],
  );
  return (
    <div className="context-scroll" ref={scrollRef}>
      <div className="turn-canvas" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div key={item.key} className="turn-item" data-index={item.index} ref={virtualizer.measureElement} style={{ transform: `translateY(${item.start}px)` }}>
            <ContextRow index={item.index} message={messages[item.index]} open={open.has(item.index)} onToggle={toggle} coverage={coverage} />
          </div>
        ))}
      </div>
    </div>
  );
});

/** Tokens and counts per origin kind (turns, summaries, synthetic). */
export function tokensByOrigin(messages: readonly ReplayMessage[]) {
  const sums = { turn: 0, summary: 0, synthetic: 0 };
  const counts = { turn: 0, summary: 0, synthetic: 0 };
  for (const m of messages) {
    sums[m.origin.kind] += m.tokens;
    counts[m.origin.kind]++;
  }
  return { sums, counts };
}

export const ContextView = memo(function ContextView({ wb }: { wb: Workbench }) {
  const stored = useReplay(wb.variant?.id ?? null, true);
  // A draft (no variant has these parameters): the session under the strategy with no summaries yet.
  const draftReplay = useDraftReplay(wb.session?.id ?? null, wb.strategy, wb.params, wb.paramsKey, wb.draft);
  const replay = wb.draft ? draftReplay : stored;
  const messages = replay.data?.messages ?? NO_MESSAGES;
  const byOrigin = useMemo(() => tokensByOrigin(messages), [messages]);
  const coverage = useSummaryCoverage(wb.summaries);

  let status: React.ReactNode = null;
  if (!wb.session) status = 'Select a session.';
  else if (!wb.variant && !wb.draft) status = wb.variantError ? `Cannot look up the variant: ${wb.variantError.message}` : 'Looking up the variant…';
  else if (replay.isPending) status = 'Building the replay…';
  else if (replay.error) status = `Cannot build the replay: ${(replay.error as Error).message}`;

  return (
    <div className="context-view" data-testid="context-view" data-total-tokens={replay.data?.totalTokens ?? ''} data-message-count={replay.data ? messages.length : ''}>
      {replay.data ? (
        <div className="context-summary">
          <span>
            <b>{formatInt(messages.length)}</b> messages · <b data-testid="context-total">{formatInt(replay.data.totalTokens)}</b> tokens in total
          </span>
          <span className="muted">
            turns {formatInt(byOrigin.counts.turn)} ({formatCompact(byOrigin.sums.turn)}) · summaries {formatInt(byOrigin.counts.summary)} ({formatCompact(byOrigin.sums.summary)}) · synthetic {formatInt(byOrigin.counts.synthetic)}
          </span>
        </div>
      ) : null}
      {status ? <div className="empty-state">{status}</div> : null}
      <ContextMessages messages={messages} coverage={coverage} />
    </div>
  );
});

export function useSummaryCoverage(summaries: readonly SummaryInfo[]): SummaryCoverage {
  return useMemo(() => new Map(summaries.map((s) => [s.id, { first: s.firstPosition, last: s.lastPosition }])), [summaries]);
}
