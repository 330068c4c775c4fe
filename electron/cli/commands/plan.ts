/** `plan <session> --strategy S [--set k=v ...]`: the pure planner's decision, no summarizer call, no write. */
import type { PlanReport } from '../../../shared/contract.js';
import { planSession } from '../../engine/engine.js';
import { compactOutcome } from '../../../shared/strategies/index.js';
import { requireSession, type CliCommand } from '../framework.js';
import { asCliError, clampedParamsArg, strategyArg, STRATEGY_OPTIONS, SUMMARIZER_OPTIONS, summarizerArg } from './engine-args.js';

export const command: CliCommand = {
  name: 'plan',
  summary: 'Show what a compaction would do (trigger, boundaries, spans, projected DAG) without running it',
  usage: 'plan <session> --strategy S [--set KEY=VALUE ...] [--summarizer K] [--force] [--db PATH] [--json]',
  description:
    'Plans against the summaries the same variant (strategy + parameters + summarizer) already has, so a plan after a compaction shows what a next pass would add. No summarizer is called and nothing is written.',
  options: { ...STRATEGY_OPTIONS, ...SUMMARIZER_OPTIONS, force: { type: 'boolean', description: 'report what `compact --force` would do (run even when the trigger says no)' } },
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const strategy = strategyArg(ctx);
    const { apiKey: _key, ...summarizer } = summarizerArg(ctx);
    const { params, notes } = clampedParamsArg(ctx, strategy);
    let plan;
    try {
      plan = planSession(db, { sessionId: session.id, strategy, params, summarizer });
    } catch (e) {
      throw asCliError(e);
    }
    const outcome = compactOutcome(plan, ctx.options.force === true);
    if (ctx.jsonMode) {
      ctx.json({ sessionId: session.id, ...plan, outcome, ...(notes.length > 0 ? { paramNotes: notes } : {}) } satisfies PlanReport);
      return 0;
    }
    ctx.out(`Plan for session ${session.id} (${session.turns} turns, ${session.tokens} tokens), strategy ${strategy}${plan.variantId !== null ? `, variant ${plan.variantId}` : ', new variant'}`);
    ctx.out(`  parameters: ${Object.entries(plan.params).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    ctx.out(`  trigger: ${plan.trigger.compact ? 'compact' : 'no compaction'}: ${plan.trigger.reason}`);
    for (const b of plan.boundaries) ctx.out(`  boundary ${b.kind} at turn ${b.position}: ${b.label}`);
    for (const s of plan.spans) ctx.out(`  span ${s.id} ${s.purpose}: turns ${s.firstPosition}-${s.lastPosition} (${s.turnIds.length} turns, ${s.tokens} tokens) -> ~${s.targetTokens} tokens`);
    for (const c of plan.condense) ctx.out(`  condense ${c.id} at depth ${c.depth}: ${c.childIds.join(', ')} -> ~${c.targetTokens} tokens`);
    ctx.out(`  compact${ctx.options.force === true ? ' --force' : ''}: ${outcome.runs ? 'runs' : 'does not run'}${outcome.note ? ` (${outcome.note})` : ''}`);
    ctx.out(`  tokens the model sees: ${plan.tokensBefore} now, ~${outcome.tokensAfter} after${plan.budget !== null ? ` (budget ${plan.budget})` : ''}`);
    return 0;
  },
};
