/**
 * The watermark pass through the real engine, store and tokenizer on synthetic sessions:
 * compaction at the soft threshold, preserved turns, cost and budget, the forced hard
 * cap, no_valid_boundary, the truncation fallback and a summarizer failure below the cap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { planSession, runCompaction, resolveVariantFor } from '../../electron/engine/engine.js';
import { fixtureDb, sessionBySource, splitCycles, turnsDump } from '../helpers/fixture-sessions.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { getVariant, listRuns, listSummaries, setVariantState } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { buildReplay, validateMessages, WATERMARK_GLUE } from '../../shared/replay/index.js';
import type { DB } from '../../electron/store/db.js';
import { itemsToSourceText, turnsToItems } from '../../shared/model/items.js';
import { chatSession, insertSession, scriptedSummarizer, turn, turnsTableSnapshot } from '../helpers/replay-fixtures.js';
import { tempDb } from '../helpers/temp-db.js';
import { writeSetting } from '../../electron/store/settings.js';

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});
function setup(): DB {
  const t = tempDb();
  cleanup = t.cleanup;
  return t.db;
}

const eventsOf = (db: DB, variantId: number, runId: number): Array<Record<string, unknown> & { kind: string }> => listRuns(db, variantId).find((r) => r.id === runId)!.events.map((e) => ({ ...e.data, kind: e.kind }));
const tokensIn = (db: DB, sessionId: number, from: number, to: number) => listTurnMetas(db, sessionId).slice(from, to).reduce((a, m) => a + m.tokenCount, 0);

function replayOf(db: DB, sessionId: number, variantId: number) {
  const v = getVariant(db, variantId)!;
  return buildReplay({ strategy: 'watermark', turns: listTurns(db, sessionId), summaries: listSummaries(db, variantId), state: v.state, params: v.params, countTokens: (t) => countTokens(t) });
}

describe('watermark pass', () => {
  it('compacts at the soft threshold into one COMPACTION_SUMMARY turn and never summarizes the preserved turns', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40)); // 41 turns: system + 40
    const before = turnsTableSnapshot(db);
    const params = { softThresholdTokens: 1000, preserveRecentTurns: 4 };
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params });
    expect(r.status).toBe('completed');
    expect(turnsTableSnapshot(db)).toBe(before);

    const v = getVariant(db, r.variantId)!;
    expect(v.state).toMatchObject({ watermark: 37, spentUsd: 0 });
    const [s] = listSummaries(db, r.variantId);
    expect(s).toMatchObject({ kind: 'watermark', depth: 0, tier: 'normal', model: 'extractive', compacted: false, firstPosition: 1, lastPosition: 36 });
    expect(v.state.watermarkSummaryId).toBe(s.id);
    const ids = listTurnMetas(db, sessionId).map((m) => m.id);
    expect(s.turnIds).toEqual(ids.slice(1, 37));
    for (const preserved of ids.slice(37)) expect(s.turnIds).not.toContain(preserved);

    const replay = replayOf(db, sessionId, r.variantId);
    expect(replay.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const head = (replay.messages[1].blocks[0] as { text: string }).text;
    // The tag carries the watermark before the pass (1, the end of the system prefix).
    expect(head.startsWith('<COMPACTION_SUMMARY model=extractive watermark_before=1>\n[watermark summary of 36 items]')).toBe(true);
    expect(head.endsWith('\n</COMPACTION_SUMMARY>')).toBe(true);
    // Turn 37 is the user's: an assistant turn keeps the roles alternating.
    expect(replay.messages[2]).toMatchObject({ origin: { kind: 'synthetic' }, blocks: [{ type: 'text', text: WATERMARK_GLUE }] });
    expect(replay.messages.slice(3).map((m) => (m.origin.kind === 'turn' ? m.origin.position : -1))).toEqual([37, 38, 39, 40]);
    expect(validateMessages(replay.messages, 'openai')).toEqual([]);
    expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);

    const events = eventsOf(db, r.variantId, r.runId);
    expect(events.map((e) => e.kind)).toEqual(['compaction_started', 'compaction_completed']);
    expect(events[0]).toMatchObject({ level: 'soft', fromWatermark: 1, toWatermark: 37, turns: 36, pendingTokens: tokensIn(db, sessionId, 1, 37) });
    // The extractive summarizer reports no usage: the pass charges what it read and wrote (at price 0).
    const source = itemsToSourceText(turnsToItems(listTurns(db, sessionId, { from: 1, to: 37 })));
    expect(events[1]).toMatchObject({ cacheHit: false, costUsd: 0, tokensIn: countTokens(source), tokensOut: s.tokenCount, tier: 'normal', model: 'extractive', watermark: 37, summaryTokens: s.tokenCount });
    expect(typeof events[1].latencyMs).toBe('number');

    // Design version 1: the summary is never pending (never re-summarized); with no new turn, nothing is pending: nothing moves.
    const again = await runCompaction(db, { sessionId, strategy: 'watermark', params });
    expect(again).toMatchObject({ status: 'skipped', variantId: r.variantId });
    expect(again.stats).toMatchObject({ skip: 'below_soft_threshold', pendingTokens: 0 });
    // Forced, the boundary rule still holds: nothing new between the watermark and the preserved turns.
    const forced = await runCompaction(db, { sessionId, strategy: 'watermark', params, force: true });
    expect(forced.stats).toMatchObject({ skip: 'nothing_new', reason: 'nothing_new: no turns between the watermark (37) and the preserved turns' });
    expect(listSummaries(db, r.variantId)).toHaveLength(1);
  });

  it('moves the watermark only forward and summarizes only new turns, with no prior summary (design version 1)', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const calls: Parameters<ReturnType<typeof scriptedSummarizer>['summarize']>[0][] = [];
    const summarizer = scriptedSummarizer({ calls });
    const first = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000, preserveRecentTurns: 20 }, summarizer });
    expect(getVariant(db, first.variantId)!.state.watermark).toBe(21);
    // Same variant, forced: the thresholds are skipped, the boundary rule is not.
    const second = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000, preserveRecentTurns: 20 }, summarizer, force: true });
    expect(second.status).toBe('skipped');
    expect(second.stats.skip).toBe('nothing_new');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ purpose: 'watermark', priorSummary: null, targetTokens: 2000 });
    expect(calls[0].items).toHaveLength(20);
  });

  it('charges prices.ts x tokens in/out to the session budget', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const summarizer = scriptedSummarizer({ model: 'gpt-4o-mini', tokensIn: 10000, tokensOut: 500 });
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000 }, summarizer });
    // (10,000 x 0.15 + 500 x 0.60) / 1e6
    expect(getVariant(db, r.variantId)!.state.spentUsd).toBeCloseTo(0.0018, 12);
    const done = eventsOf(db, r.variantId, r.runId).find((e) => e.kind === 'compaction_completed')!;
    expect(done).toMatchObject({ tokensIn: 10000, tokensOut: 500, model: 'gpt-4o-mini', cacheHit: false });
    expect(done.costUsd).toBeCloseTo(0.0018, 12);
  });

  it('spends nothing of the session budget on a local model the price table does not list (issue 10)', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const summarizer = scriptedSummarizer({ model: 'llama3.1:8b', tokensIn: 10000, tokensOut: 500 });
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000 }, summarizer });
    // Before shared/cost/prices.ts this was charged at gpt-4o's rate: (10,000 x 2.5 + 500 x 10) / 1e6 = $0.03.
    expect(getVariant(db, r.variantId)!.state.spentUsd).toBe(0);
    const done = eventsOf(db, r.variantId, r.runId).find((e) => e.kind === 'compaction_completed')!;
    expect(done).toMatchObject({ model: 'llama3.1:8b', costUsd: 0 });
  });

  it('skips at the soft threshold once the budget is spent, and compacts at the hard cap anyway (budget_exhausted_forced)', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const pending = tokensIn(db, sessionId, 1, 36);
    const soft = { softThresholdTokens: 1000, hardCapTokens: pending + 1 };
    const v = resolveVariantFor(db, { sessionId, strategy: 'watermark', params: soft });
    setVariantState(db, v.id, { spentUsd: 0.25 });
    const skipped = await runCompaction(db, { sessionId, strategy: 'watermark', params: soft });
    expect(skipped).toMatchObject({ status: 'skipped', variantId: v.id });
    expect(skipped.stats.skip).toBe('budget_exhausted');
    expect(eventsOf(db, v.id, skipped.runId)).toEqual([expect.objectContaining({ kind: 'compaction_skipped', level: 'soft', pendingTokens: pending })]);
    expect(listSummaries(db, v.id)).toEqual([]);

    const hard = { softThresholdTokens: 1000, hardCapTokens: pending };
    const hv = resolveVariantFor(db, { sessionId, strategy: 'watermark', params: hard });
    setVariantState(db, hv.id, { spentUsd: 0.25 });
    const forced = await runCompaction(db, { sessionId, strategy: 'watermark', params: hard });
    expect(forced.status).toBe('completed');
    expect(forced.stats.failureMode).toBe('budget_exhausted_forced');
    const events = eventsOf(db, hv.id, forced.runId);
    expect(events.map((e) => [e.kind, e.failureMode])).toEqual([
      ['compaction_started', 'budget_exhausted_forced'],
      ['compaction_completed', 'budget_exhausted_forced'],
    ]);
    expect(getVariant(db, hv.id)!.state).toMatchObject({ watermark: 36, spentUsd: 0.25 });
  });

  it('skips with no_valid_boundary when one tool cycle spans every possible cut', async () => {
    const db = setup();
    const turns = [
      turn('system', 'sys'),
      turn('assistant', [{ type: 'tool_use', id: 'toolu_long', name: 'Bash', input: { command: 'make -j8' } }]),
      ...chatSession(10, 40).slice(1),
      turn('user', [{ type: 'tool_result', tool_use_id: 'toolu_long', content: 'build finished', is_error: false }]),
    ];
    const sessionId = insertSession(db, turns);
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 100 } });
    expect(r.status).toBe('skipped');
    expect(r.stats.failureMode).toBe('no_valid_boundary');
    expect(eventsOf(db, r.variantId, r.runId)).toEqual([
      expect.objectContaining({ kind: 'compaction_failed', failureMode: 'no_valid_boundary', reason: 'no_valid_boundary: no tool-cycle-safe cut between the watermark (1) and the preserved turns (18): a tool cycle spans them' }),
    ]);
    expect(listSummaries(db, r.variantId)).toEqual([]);
  });

  it('falls back to truncating the oldest turns when the summarizer fails at the hard cap', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const before = turnsTableSnapshot(db);
    const hardCap = 1500;
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 100, hardCapTokens: hardCap }, summarizer: scriptedSummarizer({ fail: true }) });
    expect(r.status).toBe('completed');
    expect(turnsTableSnapshot(db)).toBe(before);

    // Independent expectation: the smallest cut b (all cuts are safe in this chat) with
    // tokens[b, 36) < hard cap (version 1: pending counts only the turns after the watermark).
    let b = 2;
    while (tokensIn(db, sessionId, b, 36) >= hardCap) b++;
    const [s] = listSummaries(db, r.variantId);
    expect(s).toMatchObject({ kind: 'watermark', tier: 'truncation', model: 'truncation', firstPosition: 1, lastPosition: b - 1 });
    expect(s.text).toMatch(new RegExp(`^\\[${b - 1} earlier message\\(s\\), turns 1-${b - 1}, were truncated without a summary: the summarizer failed \\(summarizer failed on every tier: normal: HTTP 500 from the test summarizer; aggressive: HTTP 500 from the test summarizer\\)\\.\\]$`));
    expect(getVariant(db, r.variantId)!.state).toMatchObject({ watermark: b, watermarkSummaryId: s.id, spentUsd: 0 });
    expect(tokensIn(db, sessionId, b, 36)).toBeLessThan(hardCap);

    const events = eventsOf(db, r.variantId, r.runId);
    expect(events.map((e) => e.kind)).toEqual(['compaction_started', 'compaction_failed']);
    expect(events[1]).toMatchObject({ failureMode: 'adapter_error', truncatedMessageCount: b - 1, watermark: b });
    expect(r.stats).toMatchObject({ truncatedMessageCount: b - 1, underHardCap: true });

    const replay = replayOf(db, sessionId, r.variantId);
    expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
    expect((replay.messages[1].blocks[0] as { text: string }).text.startsWith('<COMPACTION_SUMMARY model=truncation watermark_before=1>')).toBe(true);
  });

  it('skips and retries later when the summarizer fails below the hard cap', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 100 }, summarizer: scriptedSummarizer({ fail: true }) });
    expect(r.status).toBe('skipped');
    expect(r.stats.failureMode).toBe('adapter_error');
    expect(eventsOf(db, r.variantId, r.runId).map((e) => [e.kind, e.failureMode, e.retry])).toEqual([
      ['compaction_started', undefined, undefined],
      ['compaction_failed', 'adapter_error', true],
    ]);
    expect(listSummaries(db, r.variantId)).toEqual([]);
    expect(getVariant(db, r.variantId)!.state).toEqual({});
  });
});

describe('watermark on real fixture sessions', () => {
  it('spotter 258c7280 (306 turns, 140,001 tokens): the hard cap compacts 301 turns into one summary', async () => {
    const f = fixtureDb();
    try {
      const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
      const plan = planSession(f.db, { sessionId: s.id, strategy: 'watermark', params: {} });
      expect(plan.trigger).toEqual({ compact: true, level: 'hard', pressure: 139812 / 80000, reason: 'pending 139,812 tokens >= hard cap 80,000; watermark 0 -> 301' });
      expect(plan.spans.map((x) => [x.firstPosition, x.lastPosition, x.turnIds.length, x.tokens])).toEqual([[0, 300, 301, 139812]]);
      expect([plan.tokensBefore, plan.tokensAfter]).toEqual([140001, 2189]);

      const before = turnsDump(f.db);
      const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'watermark', params: {} });
      expect(r.status).toBe('completed');
      expect(turnsDump(f.db)).toBe(before);
      const [sum] = listSummaries(f.db, r.variantId);
      expect(sum).toMatchObject({ kind: 'watermark', firstPosition: 0, lastPosition: 300 });
      expect(sum.turnIds).toHaveLength(301);
      const replay = replayOf(f.db, s.id, r.variantId);
      // summary, then the 5 preserved turns (301 is the assistant's: no glue needed)
      expect(replay.messages.map((m) => (m.parts ?? [m.origin]).map((o) => (o.kind === 'turn' ? o.position : o.kind)))).toEqual([['summary'], [301], [302], [303], [304], [305]]);
      expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
    } finally {
      f.close();
    }
  });

  it('SWE-agent marshmallow: the watermark moves back one turn to keep a tool cycle whole', () => {
    const f = fixtureDb();
    try {
      const s = sessionBySource(f, 'marshmallow');
      const plan = planSession(f.db, { sessionId: s.id, strategy: 'watermark', params: { softThresholdTokens: 0, preserveRecentTurns: 3 } });
      expect(plan.boundaries.map((b) => [b.kind, b.position])).toEqual([['prefix-end', 1], ['watermark', 24], ['preserved-tail', 24]]);
      expect(plan.trigger.reason).toBe('pending 7,256 tokens >= soft threshold 0, $0.0000 of the $0.20 budget spent; watermark 1 -> 24 (moved back 1 turn(s) to keep a tool cycle whole)');
      expect(plan.spans.map((x) => [x.firstPosition, x.lastPosition, x.tokens])).toEqual([[1, 23, 7214]]);
      expect(splitCycles(f.db, s.id, new Set(Array.from({ length: 23 }, (_, i) => i + 1)))).toEqual([]);
    } finally {
      f.close();
    }
  });
});

describe("the user's prices (settings)", () => {
  it('price a local model the table does not list, for the summarizer cost and the session budget', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    writeSetting(db, 'prices', { 'llama3.1:8b': { input: 0.1, output: 0.2 } });
    const summarizer = scriptedSummarizer({ model: 'llama3.1:8b', tokensIn: 10000, tokensOut: 500 });
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000 }, summarizer });
    // (10,000 x 0.1 + 500 x 0.2) / 1e6, where the table alone would say 0.
    expect(getVariant(db, r.variantId)!.state.spentUsd).toBeCloseTo(0.0011, 12);
    expect(r.stats.costUsd).toBeCloseTo(0.0011, 12);
  });
});
