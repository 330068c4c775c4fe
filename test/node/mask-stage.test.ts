/**
 * Observation masking as an optional first stage of the summarizing strategies
 * (shared/strategies/mask-stage.ts), on the real 306-turn spotter session: the planner
 * sees masked counts, the summarizer masked turns, the replay masked tool results, and
 * the stored turns never change.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../electron/store/db.js';
import { importFiles } from '../../electron/importers/import.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { listSummaries, getVariant } from '../../electron/store/variants.js';
import { planSession, runCompaction } from '../../electron/engine/engine.js';
import { countTokens } from '../../electron/tokenizer.js';
import { planFor } from '../../shared/strategies/index.js';
import { maskedMetas } from '../../shared/strategies/mask-stage.js';
import { createExtractiveSummarizer } from '../../shared/summarize/extractive.js';
import type { SummarizeRequest, Summarizer } from '../../shared/strategies/summarizer.js';
import { buildReplay, validateMessages } from '../../shared/replay/index.js';
import { FIXTURES, turnsDump } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code', 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
const PLACEHOLDER = /^\[tool result masked: .+ output, \d+ chars removed\]$/;

let tmp: TempDb;
let db: DB;
let sessionId: number;

beforeAll(() => {
  tmp = tempDb('cs-mask-stage-');
  db = tmp.db;
  sessionId = importFiles(db, [SPOTTER], { discoverSubagents: false }).sessions[0].id;
});
afterAll(() => tmp.cleanup());

describe('masking as a first stage of the summarizing strategies', () => {
  it('is off by default (∞) and, when set, plans every summarizing strategy on the masked counts', () => {
    const metas = listTurnMetas(db, sessionId);
    const masking = planFor('masking', { turns: metas, summaries: [], state: {}, params: { maskWindow: 10 } });
    const maskedIds = new Set(masking.spans[0].turnIds);
    expect(maskedIds.size).toBeGreaterThan(100);
    const staged = maskedMetas(metas, 10);
    // Exactly the result turns the masking baseline masks are shrunk, nothing else changes.
    expect(staged.filter((m, i) => m !== metas[i]).map((m) => m.id).sort((a, b) => a - b)).toEqual([...maskedIds].sort((a, b) => a - b));
    const stagedTokens = staged.reduce((a, m) => a + m.tokenCount, 0);
    for (const strategy of ['dag', 'rolling', 'watermark', 'two-line'] as const) {
      const off = planFor(strategy, { turns: metas, summaries: [], state: {}, params: {} });
      const on = planFor(strategy, { turns: metas, summaries: [], state: {}, params: { preMaskWindow: 10 } });
      expect(off.params.preMaskWindow).toBe(-1);
      expect(on.tokensBefore).toBeLessThan(off.tokensBefore);
      if (strategy === 'dag') expect(on.tokensBefore).toBe(stagedTokens);
    }
  });

  it('summarizes masked turns, replays masked tool results validly, and leaves the turns untouched', async () => {
    const before = turnsDump(db);
    const extractive = createExtractiveSummarizer();
    const requests: SummarizeRequest[] = [];
    const recording: Summarizer = {
      kind: extractive.kind,
      model: extractive.model,
      promptVersion: extractive.promptVersion,
      summarize: (req, signal) => {
        requests.push(req);
        return extractive.summarize(req, signal);
      },
    };
    const r = await runCompaction(db, { sessionId, strategy: 'dag', params: { preMaskWindow: 5, tokenBudget: 40000, leafChunkTokens: 8000 }, summarizer: recording, force: true });
    expect(r.status).toBe('completed');
    expect(r.error).toBeNull();
    const text = requests.flatMap((q) => q.items.map((i) => i.text)).join('\n');
    expect(text).toContain('[tool result masked: ');

    const variant = getVariant(db, r.variantId)!;
    expect(variant.params.preMaskWindow).toBe(5);
    const turns = listTurns(db, sessionId);
    const count = (t: string) => countTokens(t);
    const replay = buildReplay({ strategy: 'dag', turns, summaries: listSummaries(db, r.variantId), state: variant.state, params: variant.params, countTokens: count });
    // The run's tokensAfter counts a masked result at MASK_PLACEHOLDER_TOKENS (visibleTokens); the replay counts the real placeholder text.
    expect(r.stats.tokensAfter).toBe(planSession(db, { sessionId, strategy: 'dag', params: variant.params, variantId: r.variantId }).tokensBefore);
    const results = replay.messages.flatMap((m) => m.blocks.filter((b) => b.type === 'tool_result'));
    // The fresh tail keeps the last 5 tool cycles' results; anything older in view is a placeholder.
    expect(results.some((b) => b.type === 'tool_result' && PLACEHOLDER.test(b.content))).toBe(true);
    expect(validateMessages(replay.messages, 'openai')).toEqual([]);
    expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
    // Without the stage the same replay shows every result in full.
    const plain = buildReplay({ strategy: 'dag', turns, summaries: [], state: {}, params: {}, countTokens: count });
    expect(plain.messages.flatMap((m) => m.blocks).some((b) => b.type === 'tool_result' && PLACEHOLDER.test(b.content))).toBe(false);
    expect(turnsDump(db)).toBe(before);
  });
});
