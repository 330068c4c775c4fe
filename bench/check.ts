/**
 * The reference replay's time beside the fast replay's (`npm run bench -- --only check`): for
 * each strategy, `checkReplay` (shared/replay/check.ts) on a generated session at parameters
 * that fire, timing the fast replay (as the projection runs it) and the reference (the design's
 * rule as plain loops, quadratic). The ratio is what the fast path buys; `agree` says it still
 * equals the rule. The session is small (default 3,000 turns) because the reference is quadratic.
 *
 * `npx tsx bench/check.ts [--turns N] [--json]`
 */
import { pathToFileURL } from 'node:url';
import { checkReplay } from '../shared/replay/check.js';
import { prepareStrategy } from '../shared/strategies/index.js';
import { callsOf } from '../shared/replay/live.js';
import { STRATEGIES, type StrategyName } from '../shared/strategies/types.js';
import { syntheticSessionMetas } from './plan.js';

/** Parameters that fire several times on a few thousand generated turns. */
const POINTS: Record<StrategyName, Record<string, unknown>> = {
  dag: { tokenBudget: 60_000, contextMeasure: 'transcript' },
  rolling: { replayTriggerTokens: 40_000, contextMeasure: 'transcript' },
  watermark: { contextMeasure: 'transcript' },
  'two-line': { contextWindow: 60_000, contextMeasure: 'transcript' },
  masking: {},
  window: {},
  forgetting: {},
  codex: { contextWindow: 60_000, contextMeasure: 'transcript' },
  'claude-code': { contextWindow: 60_000, contextMeasure: 'transcript' },
};

export async function benchCheck(o: { turns: number }): Promise<Record<string, unknown>> {
  const metas = syntheticSessionMetas(o.turns);
  const calls = callsOf(metas);
  const rows: Record<string, unknown> = {};
  for (const strategy of STRATEGIES) {
    const r = await checkReplay({ prepared: prepareStrategy(strategy, POINTS[strategy]), metas, calls, model: { a: 0, b: 1, source: 'parameter' } });
    rows[strategy] = { turns: metas.length, calls: calls.length, firings: r.reference.firings.length, fastMs: r.fast.ms, referenceMs: r.reference.ms, referenceOverFast: r.fast.ms > 0 ? Math.round((r.reference.ms / r.fast.ms) * 10) / 10 : null, agree: r.agree };
  }
  return { turns: metas.length, strategies: rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const out = await benchCheck({ turns: Number(arg('turns') ?? 3_000) });
  if (process.argv.includes('--json')) console.log(JSON.stringify(out));
  else for (const [s, r] of Object.entries(out.strategies as Record<string, Record<string, unknown>>)) console.log(`${s.padEnd(11)} ${JSON.stringify(r)}`);
}
