/**
 * Plan-time benchmark: every strategy in the registry planned over one synthetic
 * 100,000-turn session (the target is a median <= 16 ms, one frame, so the window's
 * sliders re-plan live). `benchPlans` is called by bench/run.ts (`npm run bench`);
 * `npx tsx bench/plan.ts [--turns N] [--runs N] [--json]` runs it alone.
 *
 * The session is deterministic (a fixed LCG) and shaped like a real agent transcript:
 * a system prompt, then episodes of a user request, assistant tool calls (sometimes two in
 * parallel, answered by one or two result turns), and an assistant answer; tool results
 * are the large turns, as in real sessions.
 */
import { pathToFileURL } from 'node:url';
import { planFor } from '../shared/strategies/index.js';
import { STRATEGIES, type StrategyName } from '../shared/strategies/types.js';
import type { Role, TurnMeta } from '../shared/model/turn.js';

export interface PlanBenchResult {
  turns: number;
  medianMs: number;
  p95Ms: number;
}

/** A deterministic synthetic session of `turns` TurnMetas with realistic tool cycles. */
export function syntheticSessionMetas(turns: number): TurnMeta[] {
  let seed = 0x2545f491;
  const rand = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 0x100000000;
  };
  const metas: TurnMeta[] = [];
  const push = (role: Role, tokens: number, cycleStart?: number) => {
    const position = metas.length;
    if (position >= turns) return;
    const tokenCount = Math.max(1, Math.round(tokens));
    metas.push({ id: position + 1, position, role, tokenCount, charCount: tokenCount * 4, cycleStart: cycleStart ?? position });
  };
  push('system', 3000);
  while (metas.length < turns) {
    push('user', 20 + rand() * 200);
    const calls = 1 + Math.floor(rand() * 6);
    for (let c = 0; c < calls && metas.length < turns; c++) {
      const callAt = metas.length;
      push('assistant', 40 + rand() * 150);
      const parallel = rand() < 0.2;
      push('user', 50 + rand() * (rand() < 0.1 ? 8000 : 1200), callAt);
      if (parallel) push('user', 50 + rand() * 1200, callAt);
    }
    push('assistant', 30 + rand() * 400);
  }
  return metas;
}

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Plans every registered strategy `runs` times (after a warm-up) with default parameters. */
export function benchPlans(opts: { turns: number; runs?: number; warmup?: number }): Record<StrategyName, PlanBenchResult> {
  const runs = opts.runs ?? 50;
  const warmup = opts.warmup ?? 5;
  const turns = syntheticSessionMetas(opts.turns);
  const out = {} as Record<StrategyName, PlanBenchResult>;
  for (const strategy of STRATEGIES) {
    const input = { turns, summaries: [], state: {}, params: {} };
    for (let i = 0; i < warmup; i++) planFor(strategy, input);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      planFor(strategy, input);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    out[strategy] = { turns: turns.length, medianMs: round(percentile(times, 50)), p95Ms: round(percentile(times, 95)) };
  }
  return out;
}

function main(argv: string[]): void {
  const arg = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const results = benchPlans({ turns: arg('--turns', 100_000), runs: arg('--runs', 50) });
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ plan: results })}\n`);
    return;
  }
  console.log('strategy     turns    median ms   p95 ms');
  for (const [name, r] of Object.entries(results)) {
    const line = `${r.medianMs.toFixed(3).padStart(9)}  ${r.p95Ms.toFixed(3).padStart(8)}${r.medianMs > 16 ? '  (over one frame)' : ''}`;
    console.log(`${name.padEnd(12)} ${String(r.turns).padEnd(8)} ${line}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
