/**
 * One turn in the virtualized list, with the markers drawn before it (the strategy's
 * boundaries, compactions the source tool recorded) and its lane: which planned chunk
 * it falls in, whether a summary of the variant already covers it, whether it is in the
 * protected tail. Memoized: while a slider moves only rows whose lane or markers change
 * re-render.
 */
import { memo } from 'react';
import type { PlanBoundary } from '../../shared/strategies/types.js';
import type { ExternalCompactionInfo } from '../../shared/contract.js';
import type { Role, Turn } from '../../shared/model/turn.js';
import { firstLineOf, formatCompact, formatInt, toolNamesOf } from '../format.js';
import { TurnDetails } from './TurnDetails.js';

export interface RowLane {
  /**
   * Planned span at this turn: its purpose and parity (alternating shades tell neighbours
   * apart); `applied` when the variant's stored state already masks / drops it.
   */
  span: { id: string; purpose: string; odd: boolean; first: boolean; tokens: number; targetTokens: number; applied: boolean } | null;
  /** Id of the variant's summary covering this turn directly. */
  coveredBy: number | null;
  protectedTail: boolean;
}

export interface TurnRowProps {
  position: number;
  role: Role | undefined;
  tokens: number | undefined;
  turn: Turn | undefined;
  boundaries: readonly PlanBoundary[] | undefined;
  /** The protected-tail boundary: the one marker drawn with testid fresh-tail-boundary. */
  protectedBoundary: PlanBoundary | null;
  /** Turns after the protected boundary (for its label). */
  turnCount: number;
  externals: readonly ExternalCompactionInfo[] | undefined;
  lane: RowLane;
  highlighted: boolean;
  expanded: boolean;
  focused: boolean;
  /** Markers drawn after the last row (a boundary at position === turnCount). */
  trailing?: { boundaries: readonly PlanBoundary[] | undefined };
  onToggle(position: number): void;
  onSelectExternal(id: number): void;
}

const ROLE_LABEL: Record<Role, string> = { system: 'system', user: 'user', assistant: 'assistant', tool: 'tool' };

function BoundaryMarker({ boundary, isProtected, turnCount }: { boundary: PlanBoundary; isProtected: boolean; turnCount: number }) {
  return (
    <div
      className={`boundary boundary-${boundary.kind}${isProtected ? ' boundary-protected' : ''}`}
      data-testid={isProtected ? 'fresh-tail-boundary' : 'plan-boundary'}
      data-kind={boundary.kind}
      data-position={boundary.position}
      title={`${boundary.label} (before turn ${boundary.position} of ${turnCount})`}
    >
      <span className="boundary-line" aria-hidden="true" />
      <span className="boundary-label">
        {boundary.label}
      </span>
      <span className="boundary-line" aria-hidden="true" />
    </div>
  );
}

function ExternalMarker({ external, onSelect }: { external: ExternalCompactionInfo; onSelect(id: number): void }) {
  return (
    <button type="button" className="boundary boundary-external" data-testid="external-compaction" data-position={external.boundaryPosition} onClick={() => onSelect(external.id)} title="A compaction the source tool recorded: click to read its summary">
      <span className="boundary-line" aria-hidden="true" />
      <span className="boundary-label">
        Source tool compacted here · {external.trigger}
        {external.preTokens !== null ? ` · ${formatInt(external.preTokens)} tokens before` : ''} · turns {external.firstPosition}–{external.lastPosition} → {formatInt(external.summaryTokenCount)}-token summary
      </span>
      <span className="boundary-line" aria-hidden="true" />
    </button>
  );
}

function Markers({ boundaries, externals, protectedBoundary, turnCount, onSelectExternal }: Pick<TurnRowProps, 'boundaries' | 'externals' | 'protectedBoundary' | 'turnCount' | 'onSelectExternal'>) {
  return (
    <>
      {externals?.map((e) => <ExternalMarker key={`x${e.id}`} external={e} onSelect={onSelectExternal} />)}
      {boundaries?.map((b, i) => <BoundaryMarker key={`${b.kind}-${i}`} boundary={b} isProtected={b === protectedBoundary} turnCount={turnCount} />)}
    </>
  );
}

function laneTitle(lane: RowLane): string {
  const parts: string[] = [];
  if (lane.span?.applied) parts.push(`${lane.span.purpose === 'drop' ? 'dropped' : lane.span.purpose === 'mask' ? 'masked' : 'compacted'} by the variant's last pass: ${formatInt(lane.span.tokens)} tokens → ~${formatInt(lane.span.targetTokens)}`);
  else if (lane.span) parts.push(`planned ${lane.span.purpose} ${lane.span.id}: ${formatInt(lane.span.tokens)} tokens → ~${formatInt(lane.span.targetTokens)}`);
  if (lane.coveredBy !== null) parts.push(`covered by summary s${lane.coveredBy}`);
  if (lane.protectedTail) parts.push('protected tail (never summarized)');
  return parts.join('\n');
}

function sameLane(a: RowLane, b: RowLane): boolean {
  if (a.coveredBy !== b.coveredBy || a.protectedTail !== b.protectedTail) return false;
  if (a.span === b.span) return true;
  if (!a.span || !b.span) return false;
  return a.span.id === b.span.id && a.span.purpose === b.span.purpose && a.span.odd === b.span.odd && a.span.first === b.span.first && a.span.tokens === b.span.tokens && a.span.targetTokens === b.span.targetTokens && a.span.applied === b.span.applied;
}

/** Props are rebuilt for every visible row on each render; compare what is drawn, not identities. */
function sameRow(a: TurnRowProps, b: TurnRowProps): boolean {
  return (
    a.position === b.position &&
    a.role === b.role &&
    a.tokens === b.tokens &&
    a.turn === b.turn &&
    a.boundaries === b.boundaries &&
    a.protectedBoundary === b.protectedBoundary &&
    a.turnCount === b.turnCount &&
    a.externals === b.externals &&
    a.highlighted === b.highlighted &&
    a.expanded === b.expanded &&
    a.focused === b.focused &&
    a.trailing?.boundaries === b.trailing?.boundaries &&
    a.onToggle === b.onToggle &&
    a.onSelectExternal === b.onSelectExternal &&
    sameLane(a.lane, b.lane)
  );
}

export const TurnRow = memo(function TurnRow(props: TurnRowProps) {
  const { position, turn, lane, highlighted, expanded, onToggle } = props;
  const role = turn?.role ?? props.role;
  const tokens = turn?.tokenCount ?? props.tokens;
  const tools = turn ? toolNamesOf(turn) : [];
  const hasThinking = turn ? turn.blocks.some((b) => b.type === 'thinking') : false;
  const results = turn ? turn.blocks.filter((b) => b.type === 'tool_result') : [];
  const hasError = results.some((b) => b.type === 'tool_result' && b.is_error);
  const spanClass = lane.span ? ` lane-span lane-${lane.span.purpose}${lane.span.odd ? ' odd' : ''}` : lane.protectedTail ? ' lane-protected' : '';
  return (
    <>
      <Markers boundaries={props.boundaries} externals={props.externals} protectedBoundary={props.protectedBoundary} turnCount={props.turnCount} onSelectExternal={props.onSelectExternal} />
      <div
        className={`turn-row role-${role ?? 'unknown'}${highlighted ? ' highlighted' : ''}${expanded ? ' expanded' : ''}${props.focused ? ' focused' : ''}${lane.span?.first ? ' chunk-start' : ''}`}
        data-testid="turn-row"
        data-turn-index={position}
        data-role={role}
        data-highlighted={highlighted ? 'true' : undefined}
        data-protected={lane.protectedTail ? 'true' : undefined}
        data-span={lane.span?.id}
        data-span-state={lane.span ? (lane.span.applied ? 'applied' : 'planned') : undefined}
        data-covered-by={lane.coveredBy ?? undefined}
      >
        <div className="turn-head" role="button" tabIndex={-1} aria-expanded={expanded} onClick={() => onToggle(position)} onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), onToggle(position))}>
          <span className="lane" title={laneTitle(lane)}>
            <span className={`lane-plan${spanClass}`} />
            <span className={`lane-summary${lane.coveredBy !== null ? ' covered' : ''}`} />
          </span>
          <span className="turn-pos mono">{position}</span>
          <span className={`role-badge role-${role ?? 'unknown'}`}>{role ? ROLE_LABEL[role] : '…'}</span>
          <span className="turn-text">{turn ? firstLineOf(turn.blocks) || <span className="muted">(empty)</span> : <span className="skeleton" />}</span>
          <span className="turn-chips">
            {hasThinking ? <span className="chip chip-thinking">thinking</span> : null}
            {tools.length > 0 ? (
              <span className="chip chip-tool" title={tools.join(', ')}>
                {tools[0]}
                {tools.length > 1 ? ` +${tools.length - 1}` : ''}
              </span>
            ) : null}
            {results.length > 0 ? <span className={`chip ${hasError ? 'chip-danger' : 'chip-result'}`}>{hasError ? 'error' : results.length > 1 ? `${results.length} results` : 'result'}</span> : null}
          </span>
          <span className="turn-tokens mono" title={tokens !== undefined ? `${formatInt(tokens)} tokens` : undefined}>
            {tokens !== undefined ? formatCompact(tokens) : ''}
          </span>
        </div>
        {expanded && turn ? <TurnDetails turn={turn} /> : null}
      </div>
      {props.trailing ? <Markers boundaries={props.trailing.boundaries} externals={undefined} protectedBoundary={props.protectedBoundary} turnCount={props.turnCount} onSelectExternal={props.onSelectExternal} /> : null}
    </>
  );
}, sameRow);
