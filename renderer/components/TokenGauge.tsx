/**
 * What the model would see now and after the plan, against the budget line (the model's
 * window, a hard cap...). Pure presentational: numbers in, bars out.
 */
import { memo } from 'react';
import type { TriggerDecision } from '../../shared/strategies/types.js';
import { formatCompact, formatInt, formatPercent } from '../format.js';

export interface TokenGaugeProps {
  before: number;
  after: number;
  budget: number | null;
  trigger: TriggerDecision | null;
  /** What Force changes (compactOutcome): "Force would run the 3 planned step(s)", or that it does. */
  note?: string | null;
  /** The same two figures as the context measure counts the whole context (what the trigger compares): plan.measured. */
  measured?: { before: number; after: number; measure: string } | null;
}

export const TokenGauge = memo(function TokenGauge({ before, after, budget, trigger, note = null, measured = null }: TokenGaugeProps) {
  const scale = Math.max(before, after, budget ?? 0, 1) * 1.06;
  const pct = (n: number) => `${Math.min(100, (n / scale) * 100).toFixed(2)}%`;
  const saved = before > 0 ? 1 - after / before : 0;
  const overBefore = budget !== null && before > budget;
  const overAfter = budget !== null && after > budget;
  return (
    <div className="gauge" data-testid="token-gauge" data-before={before} data-after={after} data-budget={budget ?? ''}>
      <div className="gauge-row">
        <span className="gauge-name">now</span>
        <div className="gauge-track">
          <div className={`gauge-bar gauge-before${overBefore ? ' over' : ''}`} style={{ width: pct(before) }} />
          {budget !== null ? <div className="gauge-budget" style={{ left: pct(budget) }} /> : null}
        </div>
        <span className="gauge-num mono" title={`${formatInt(before)} tokens`}>{formatCompact(before)}</span>
      </div>
      <div className="gauge-row">
        <span className="gauge-name">after</span>
        <div className="gauge-track">
          <div className={`gauge-bar gauge-after${overAfter ? ' over' : ''}`} style={{ width: pct(after) }} />
          {budget !== null ? <div className="gauge-budget" style={{ left: pct(budget) }} /> : null}
        </div>
        <span className="gauge-num mono" title={`${formatInt(after)} tokens`}>{formatCompact(after)}</span>
      </div>
      <div className="gauge-foot">
        <span>
          {saved > 0 ? <b className="good">−{formatPercent(saved)}</b> : <b>±0%</b>} ({formatInt(before)} → {formatInt(after)})
        </span>
        {budget !== null ? (
          <span className="gauge-budget-label">
            <i className="budget-swatch" /> budget {formatInt(budget)}
          </span>
        ) : null}
      </div>
      {measured && (measured.before !== before || measured.after !== after) ? (
        <div className="gauge-measured muted small" data-testid="gauge-measured" data-before={measured.before} title="What the thresholds compare with: the whole context by the variant's context measure (the bars count the transcript the variant shows).">
          context by {measured.measure}: {formatInt(measured.before)} → {formatInt(measured.after)}
        </div>
      ) : null}
      {trigger ? (
        <div className={`trigger ${trigger.compact ? 'trigger-on' : 'trigger-off'}`} data-testid="trigger-decision" data-compact={trigger.compact} title={trigger.reason}>
          <span className="trigger-dot" aria-hidden="true" />
          <span className="trigger-text">
            <b>{trigger.compact ? 'Would compact' : 'Would not compact'}</b>
            {trigger.level && trigger.level !== 'none' ? <span className="chip">{trigger.level}</span> : null} — {trigger.reason}
          </span>
        </div>
      ) : null}
      {trigger && note ? (
        <div className="trigger-note" data-testid="trigger-note">
          {note}
        </div>
      ) : null}
    </div>
  );
});
