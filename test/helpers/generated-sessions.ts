/**
 * Generated sessions for the replay's property tests (fast-check): turn metas with the shapes
 * real agent sessions have and the fast paths find hardest: a system prompt or not, tool
 * cycles answered at once, late (after newer calls) and in parallel (several calls of one
 * turn), very large turns (a 20-60k-token tool result that leaves a preserved tail in one
 * step), and the source's reported context for the calls before its own compaction.
 */
import fc from 'fast-check';
import type { TurnMeta } from '../../shared/model/turn.js';
import type { LiveCall, ContextModel } from '../../shared/replay/live.js';

export interface GeneratedSession {
  metas: TurnMeta[];
  calls: LiveCall[];
  model: ContextModel;
}

type Step = { kind: 'user' | 'text' | 'tool' | 'result'; tokens: number; uses: number; late: number };

const tokens = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1, max: 2_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 60_000 }) });
const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<Step['kind']>('user', 'text', 'tool', 'tool', 'result', 'result'),
  tokens,
  uses: fc.integer({ min: 1, max: 3 }),
  late: fc.integer({ min: 0, max: 3 }),
});

/** Builds the metas: a result answers one open call (the `late`-th newest), never its own turn. */
function build(system: boolean, steps: readonly Step[]): TurnMeta[] {
  const metas: TurnMeta[] = [];
  const open: number[] = [];
  const push = (role: TurnMeta['role'], t: number, cycleStart?: number) => {
    const position = metas.length;
    metas.push({ id: 1000 + position, position, role, tokenCount: t, charCount: t * 4, cycleStart: cycleStart ?? position });
  };
  if (system) push('system', 800);
  push('user', 200);
  for (const s of steps) {
    if (s.kind === 'user') push('user', s.tokens);
    else if (s.kind === 'text') push('assistant', s.tokens);
    else if (s.kind === 'tool') {
      for (let u = 0; u < s.uses; u++) open.push(metas.length);
      push('assistant', Math.min(s.tokens, 3_000));
    } else if (open.length > 0) {
      const i = Math.max(0, open.length - 1 - s.late);
      const use = open.splice(i, 1)[0];
      push('user', s.tokens, use);
    } else push('user', s.tokens);
  }
  // A final assistant turn, so the session ends on a call.
  push('assistant', 50);
  return metas;
}

export const generatedSession: fc.Arbitrary<GeneratedSession> = fc
  .record({
    system: fc.boolean(),
    steps: fc.array(step, { minLength: 10, maxLength: 90 }),
    fit: fc.option(fc.record({ a: fc.integer({ min: 0, max: 30_000 }), b: fc.double({ min: 1, max: 1.6, noNaN: true }) }), { nil: null }),
    // The source compacted at this fraction of its calls (or never): only calls before it report a context.
    sourceCompactsAt: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    noise: fc.integer({ min: -500, max: 500 }),
  })
  .map(({ system, steps, fit, sourceCompactsAt, noise }) => {
    const metas = build(system, steps);
    const model: ContextModel = fit ? { a: fit.a, b: fit.b, source: 'fit' } : { a: 0, b: 1, source: 'parameter' };
    const assistant = metas.filter((m) => m.role === 'assistant');
    const stop = sourceCompactsAt === null ? assistant.length : Math.floor(sourceCompactsAt * assistant.length);
    let transcript = 0;
    let q = 0;
    const calls: LiveCall[] = assistant.map((m, k) => {
      for (; q < m.position; q++) transcript += metas[q].tokenCount;
      const reported = fit && k < stop ? Math.max(1, Math.round(fit.a + fit.b * transcript) + noise) : null;
      return { position: m.position, timestampMs: null, outputTokens: m.tokenCount, reportedContext: reported };
    });
    return { metas, calls, model };
  });

/** Random parameters of each strategy, scaled to small generated sessions so every rule fires. */
export const generatedParams: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  dag: fc.record({
    tokenBudget: fc.integer({ min: 2_000, max: 120_000 }),
    contextThreshold: fc.constantFrom(0.5, 0.75, 0.9),
    freshTailCount: fc.integer({ min: 0, max: 12 }),
    leafChunkTokens: fc.integer({ min: 500, max: 20_000 }),
    condensedMinFanout: fc.integer({ min: 2, max: 5 }),
    maxCondenseDepth: fc.constantFrom(-1, 0, 1, 2),
    triggerCount: fc.constantFrom(0, 1),
    contextMeasure: fc.constantFrom('auto', 'calibrated', 'transcript'),
  }),
  rolling: fc.record({ compactionCount: fc.integer({ min: 1, max: 99 }), replayTriggerTokens: fc.integer({ min: 1_000, max: 100_000 }), contextMeasure: fc.constantFrom('auto', 'calibrated', 'transcript') }),
  watermark: fc.record({
    softThresholdTokens: fc.integer({ min: 0, max: 40_000 }),
    hardCapTokens: fc.integer({ min: 1, max: 100_000 }),
    preserveRecentTurns: fc.integer({ min: 0, max: 10 }),
    maxCostPerSessionUsd: fc.constantFrom(0, 0.2),
    summaryMaxTokens: fc.integer({ min: 64, max: 3_000 }),
    contextMeasure: fc.constantFrom('auto', 'calibrated', 'transcript'),
  }),
  'two-line': fc.record({
    warningPct: fc.integer({ min: 0, max: 100 }),
    emergencyPct: fc.integer({ min: 0, max: 100 }),
    contextWindow: fc.integer({ min: 2_000, max: 150_000 }),
    profile: fc.constantFrom(0, 1),
    keepLast: fc.constantFrom(-1, 0, 2, 6, 20),
    minBatch: fc.integer({ min: 1, max: 25 }),
    chunkChars: fc.integer({ min: 500, max: 40_000 }),
    contextMeasure: fc.constantFrom('auto', 'calibrated', 'transcript'),
  }),
  masking: fc.record({ maskWindow: fc.integer({ min: 0, max: 8 }) }),
  window: fc.record({ keepFirst: fc.integer({ min: 0, max: 4 }), maxTurns: fc.integer({ min: 1, max: 20 }) }),
  codex: fc.record({
    contextWindow: fc.integer({ min: 2_000, max: 150_000 }),
    autoCompactTokenLimit: fc.constantFrom(0, 3_000, 20_000, 80_000),
    userMessageMaxTokens: fc.constantFrom(0, 200, 2_000, 20_000),
    summaryMaxTokens: fc.integer({ min: 64, max: 3_000 }),
    contextMeasure: fc.constantFrom('auto', 'calibrated', 'transcript'),
  }),
  'claude-code': fc.record({
    contextWindow: fc.integer({ min: 2_000, max: 200_000 }),
    reservedSummaryTokens: fc.integer({ min: 0, max: 20_000 }),
    bufferTokens: fc.integer({ min: 0, max: 13_000 }),
    summaryMaxTokens: fc.integer({ min: 64, max: 4_000 }),
    contextMeasure: fc.constantFrom('auto', 'calibrated', 'transcript'),
  }),
  forgetting: fc.integer({ min: 4, max: 60 }).chain((maxSize) => fc.record({ maxSize: fc.constant(maxSize), keepFirst: fc.integer({ min: 0, max: Math.floor(maxSize / 2) - 1 }) })),
};
