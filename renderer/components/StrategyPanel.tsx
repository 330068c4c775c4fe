/**
 * Strategy picker, one slider per parameter of the strategy, and the live token gauge.
 * Moving a slider only updates the UI store; the plan is recomputed in useWorkbench.
 */
import { memo, useCallback } from 'react';
import { compactOutcome, STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import { STRATEGIES, type StrategyName } from '../../shared/strategies/types.js';
import { formatCompact, formatInt } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions, useStudio } from '../state/store.js';
import { ParamSlider } from './ParamSlider.js';
import { PromptsSection } from './PromptsSection.js';
import { TokenGauge } from './TokenGauge.js';

export const StrategyPanel = memo(function StrategyPanel({ wb }: { wb: Workbench }) {
  const def = STRATEGY_DEFINITIONS[wb.strategy];
  const strategy = wb.strategy;
  const onParam = useCallback((name: string, value: number) => actions.setParam(strategy, name, value), [strategy]);
  const changed = wb.specs.some((s) => wb.params[s.name] !== s.default);
  const plan = wb.plan;
  const force = useStudio((s) => s.force);
  // The gauge's "after" is what Compact would leave: the plan when it triggers or is forced, else the context as it is.
  const outcome = plan ? compactOutcome(plan, force) : null;
  const spanTokens = plan ? plan.spans.reduce((sum, s) => sum + s.tokens, 0) : 0;
  return (
    <section className="panel strategy-panel" aria-label="Strategy and parameters">
      <div className="panel-row strategy-row">
        <label className="field-label" htmlFor="strategy-select">Strategy</label>
        <select id="strategy-select" data-testid="strategy-select" value={strategy} onChange={(e) => actions.setStrategy(e.currentTarget.value as StrategyName)}>
          {STRATEGIES.map((name) => (
            <option key={name} value={name}>
              {STRATEGY_DEFINITIONS[name].label === name ? name : `${name} — ${STRATEGY_DEFINITIONS[name].label}`}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-ghost btn-small" disabled={!changed} onClick={() => actions.resetParams(strategy)} title="Back to the published defaults">
          Reset
        </button>
      </div>
      <p className="strategy-doc" data-testid="strategy-doc" title={def.description}>{def.description}</p>
      <div className="params">
        {wb.specs.length === 0 ? <div className="muted small">This strategy has no parameters.</div> : null}
        {wb.specs.map((spec) => (
          <ParamSlider key={`${strategy}.${spec.name}`} spec={spec} value={wb.params[spec.name]} onChange={onParam} />
        ))}
      </div>
      <PromptsSection strategy={strategy} />
      {wb.planError ? (
        <div className="plan-error" role="alert">
          <b>Cannot plan:</b> {wb.planError}
        </div>
      ) : plan ? (
        <>
          <TokenGauge before={plan.tokensBefore} after={outcome?.tokensAfter ?? plan.tokensAfter} budget={plan.budget} trigger={plan.trigger} note={outcome?.note ?? null} measured={plan.measured ?? null} />
          <div className="plan-stats muted small" data-testid="plan-stats">
            <span>
              <b>{formatInt(plan.spans.length)}</b> span{plan.spans.length === 1 ? '' : 's'} ({formatCompact(spanTokens)} tok)
            </span>
            <span>
              <b>{formatInt(plan.condense.length)}</b> condense
            </span>
            <span>
              <b>{formatInt(plan.dag.nodes.filter((n) => n.projected).length)}</b> new nodes
            </span>
            <span title="Time the shared planner took in this window">plan {wb.planMs < 1 ? wb.planMs.toFixed(2) : wb.planMs.toFixed(1)} ms</span>
          </div>
        </>
      ) : wb.session ? (
        <div className="muted small">Loading turns…</div>
      ) : null}
    </section>
  );
});
