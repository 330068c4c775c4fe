/**
 * The watermark pass through the real engine, store and tokenizer on synthetic sessions:
 * compaction at the soft threshold, preserved turns, cost and budget, the forced hard
 * cap, no_valid_boundary, the truncation fallback and a summarizer failure below the cap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { planSession, runCompaction, resolveVariantFor } from '../../electron/engine/engine.js';
import { runReplay } from '../../electron/engine/replay.js';
import { cacheRow } from '../../electron/store/summary-cache.js';
import { fixtureDb, sessionBySource, splitCycles, turnsDump } from '../helpers/fixture-sessions.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { getVariant, listRuns, listSummaries, setVariantState } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import { buildReplay, validateMessages, WATERMARK_GLUE } from '../../shared/replay/index.js';
import type { DB } from '../../electron/store/db.js';
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
    // The tag carries the watermark the pass left (37).
    expect(head.startsWith('<COMPACTION_SUMMARY model=extractive watermark=37>\n[watermark summary of 36 items]')).toBe(true);
    expect(head.endsWith('\n</COMPACTION_SUMMARY>')).toBe(true);
    // Turn 37 is the user's: an assistant turn keeps the roles alternating.
    expect(replay.messages[2]).toMatchObject({ origin: { kind: 'synthetic' }, blocks: [{ type: 'text', text: WATERMARK_GLUE }] });
    expect(replay.messages.slice(3).map((m) => (m.origin.kind === 'turn' ? m.origin.position : -1))).toEqual([37, 38, 39, 40]);
    expect(validateMessages(replay.messages, 'openai')).toEqual([]);
    expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);

    const events = eventsOf(db, r.variantId, r.runId);
    expect(events.map((e) => e.kind)).toEqual(['compaction_started', 'compaction_completed']);
    expect(events[0]).toMatchObject({ threshold_or_hard_cap: 'threshold', watermark_before: 1, watermark_after: 37, span_message_count: 36, span_token_count_in: tokensIn(db, sessionId, 1, 37) });
    // The extractive summarizer costs nothing.
    expect(events[1]).toMatchObject({ cache_hit: false, cost_usd: 0, watermark_after: 37, span_token_count_out: s.tokenCount });
    expect(typeof events[1].latency_ms).toBe('number');
    expect(r.stats).toMatchObject({ tier: 'normal', watermark: 37, summaryTokens: s.tokenCount });

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
    expect(done).toMatchObject({ cache_hit: false });
    expect(done.cost_usd).toBeCloseTo(0.0018, 12);
  });

  it('spends nothing of the session budget on a local model the price table does not list', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const summarizer = scriptedSummarizer({ model: 'llama3.1:8b', tokensIn: 10000, tokensOut: 500 });
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000 }, summarizer });
    // Before shared/cost/prices.ts this was charged at gpt-4o's rate: (10,000 x 2.5 + 500 x 10) / 1e6 = $0.03.
    expect(getVariant(db, r.variantId)!.state.spentUsd).toBe(0);
    const done = eventsOf(db, r.variantId, r.runId).find((e) => e.kind === 'compaction_completed')!;
    expect(done).toMatchObject({ cost_usd: 0 });
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
    expect(events.map((e) => [e.kind, e.failure_mode])).toEqual([
      ['compaction_started', null],
      ['compaction_failed', 'budget_exhausted_forced'],
      ['compaction_completed', null],
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
      expect.objectContaining({ kind: 'compaction_failed', failure_mode: 'no_valid_boundary', watermark_before: 1, watermark_after: 1, error_message: 'no_valid_boundary: no tool-cycle-safe cut between the watermark (1) and the preserved turns (18): a tool cycle spans them' }),
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
    expect(events[1]).toMatchObject({ failure_mode: 'adapter_error', truncated_message_count: b - 1, watermark_after: b });
    expect(r.stats).toMatchObject({ truncatedMessageCount: b - 1, underHardCap: true });

    const replay = replayOf(db, sessionId, r.variantId);
    expect(validateMessages(replay.messages, 'anthropic')).toEqual([]);
    expect((replay.messages[1].blocks[0] as { text: string }).text.startsWith(`<COMPACTION_SUMMARY model=truncation watermark=${b}>`)).toBe(true);
  });

  it('skips and retries later when the summarizer fails below the hard cap', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 100 }, summarizer: scriptedSummarizer({ fail: true }) });
    expect(r.status).toBe('skipped');
    expect(r.stats.failureMode).toBe('adapter_error');
    expect(eventsOf(db, r.variantId, r.runId).map((e) => [e.kind, e.failure_mode, e.watermark_after])).toEqual([
      ['compaction_started', null, 36],
      ['compaction_failed', 'adapter_error', 1],
    ]);
    expect(r.stats.retry).toBe(true);
    expect(listSummaries(db, r.variantId)).toEqual([]);
    expect(getVariant(db, r.variantId)!.state).toEqual({});
  });
});

describe('watermark on real fixture sessions', () => {
  it('spotter 258c7280 (306 turns, 140,001 tokens): the hard cap compacts 301 turns into one summary', async () => {
    const f = fixtureDb();
    try {
      const s = sessionBySource(f, 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
      const plan = planSession(f.db, { sessionId: s.id, strategy: 'watermark', params: { contextMeasure: 'transcript' } });
      expect(plan.trigger).toEqual({ compact: true, level: 'hard', pressure: 139812 / 80000, reason: 'pending 139,812 transcript tokens >= hard cap 80,000; watermark 0 -> 301' });
      expect(plan.spans.map((x) => [x.firstPosition, x.lastPosition, x.turnIds.length, x.tokens])).toEqual([[0, 300, 301, 139812]]);
      expect([plan.tokensBefore, plan.tokensAfter]).toEqual([140001, 2189]);

      const before = turnsDump(f.db);
      const r = await runCompaction(f.db, { sessionId: s.id, strategy: 'watermark', params: { contextMeasure: 'transcript' } });
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
      expect(plan.trigger.reason).toBe('pending 7,256 transcript tokens >= soft threshold 0, $0.0000 of the $0.20 budget spent; watermark 1 -> 24 (moved back 1 turn(s) to keep a tool cycle whole)');
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

/** The payload fields of the design's three events, in the design's names. */
const DESIGN_EVENT_FIELDS = [
  'session_id',
  'turn_id',
  'watermark_before',
  'watermark_after',
  'span_message_count',
  'span_token_count_in',
  'span_token_count_out',
  'threshold_or_hard_cap',
  'cache_hit',
  'cache_key',
  'cost_usd',
  'latency_ms',
  'failure_mode',
  'error_class',
  'error_message',
  'truncated_message_count',
].sort();
const payloadOf = (db: DB, variantId: number, runId: number) => listRuns(db, variantId).find((r) => r.id === runId)!.events.map((e) => ({ kind: e.kind, data: e.data }));

describe("watermark events: the session compaction spec's payload", () => {
  it('compaction_started and compaction_completed carry every design field, and only those', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const summarizer = scriptedSummarizer({ model: 'gpt-4o-mini', tokensIn: 10000, tokensOut: 500 });
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000, preserveRecentTurns: 4 }, summarizer });
    const [started, completed] = payloadOf(db, r.variantId, r.runId);
    const metas = listTurnMetas(db, sessionId);
    const [s] = listSummaries(db, r.variantId);
    expect(Object.keys(started.data).sort()).toEqual(DESIGN_EVENT_FIELDS);
    expect(Object.keys(completed.data).sort()).toEqual(DESIGN_EVENT_FIELDS);
    const span = { session_id: sessionId, turn_id: metas[40].id, watermark_before: 1, watermark_after: 37, span_message_count: 36, span_token_count_in: tokensIn(db, sessionId, 1, 37), threshold_or_hard_cap: 'threshold' };
    expect(started).toEqual({ kind: 'compaction_started', data: { ...span, span_token_count_out: null, cache_hit: null, cache_key: null, cost_usd: null, latency_ms: null, failure_mode: null, error_class: null, error_message: null, truncated_message_count: null } });
    expect(completed.kind).toBe('compaction_completed');
    expect(typeof completed.data.cache_key).toBe('string');
    expect(completed.data).toMatchObject({ ...span, span_token_count_out: s.tokenCount, cache_hit: false, failure_mode: null, error_class: null, error_message: null, truncated_message_count: null });
    expect(completed.data.cost_usd).toBeCloseTo(0.0018, 12);
    // The cache row keeps the span's size as the pass measured it.
    expect(cacheRow(db, completed.data.cache_key as string)).toMatchObject({ useCount: 1, spanTokenCountIn: tokensIn(db, sessionId, 1, 37) });
    expect(typeof completed.data.latency_ms).toBe('number');
  });

  it('a forced pass over a spent budget records compaction_failed with failure_mode budget_exhausted_forced, then completes', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const hard = { softThresholdTokens: 1000, hardCapTokens: tokensIn(db, sessionId, 1, 36) };
    const v = resolveVariantFor(db, { sessionId, strategy: 'watermark', params: hard });
    setVariantState(db, v.id, { spentUsd: 0.25 });
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: hard });
    expect(r.status).toBe('completed');
    const events = payloadOf(db, v.id, r.runId);
    expect(events.map((e) => [e.kind, e.data.failure_mode, e.data.threshold_or_hard_cap])).toEqual([
      ['compaction_started', null, 'hard_cap'],
      ['compaction_failed', 'budget_exhausted_forced', 'hard_cap'],
      ['compaction_completed', null, 'hard_cap'],
    ]);
    for (const e of events) expect(Object.keys(e.data).sort()).toEqual(DESIGN_EVENT_FIELDS);
    expect(events[1].data).toMatchObject({ watermark_before: 1, watermark_after: 36, error_class: null, truncated_message_count: null });
  });

  it('a failed summarizer at the hard cap: compaction_failed names the error class and message and the truncated count', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 100, hardCapTokens: 1500 }, summarizer: scriptedSummarizer({ fail: true }) });
    const [s] = listSummaries(db, r.variantId);
    const failed = payloadOf(db, r.variantId, r.runId)[1];
    expect(failed.kind).toBe('compaction_failed');
    expect(Object.keys(failed.data).sort()).toEqual(DESIGN_EVENT_FIELDS);
    expect(failed.data).toMatchObject({ failure_mode: 'adapter_error', error_class: 'SummarizerFailure', truncated_message_count: s.turnIds.length, watermark_before: 1, watermark_after: s.lastPosition + 1, span_message_count: s.turnIds.length });
    expect(failed.data.error_message).toMatch(/^summarizer failed on every tier: normal: HTTP 500/);
  });

  it('the synthetic turn carries watermark= (where its pass left the watermark)', async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const r = await runCompaction(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000, preserveRecentTurns: 4 } });
    const head = (replayOf(db, sessionId, r.variantId).messages[1].blocks[0] as { text: string }).text;
    expect(head.startsWith('<COMPACTION_SUMMARY model=extractive watermark=37>\n')).toBe(true);
  });
});

describe('watermark events in a replay', () => {
  it("are recorded as the replay's run events, each with the call it was made at", async () => {
    const db = setup();
    const sessionId = insertSession(db, chatSession(20, 40));
    const r = await runReplay(db, { sessionId, strategy: 'watermark', params: { softThresholdTokens: 1000, preserveRecentTurns: 4 } });
    expect(r.status).toBe('completed');
    const events = payloadOf(db, r.variantId, r.runId).filter((e) => e.kind !== 'firing');
    const fires = r.timeline!.events.filter((e) => e.kind === 'fire');
    expect(fires.length).toBeGreaterThan(0);
    // One started and one completed per firing, at its call, with the design's fields.
    expect(events.map((e) => [e.kind, e.data.call])).toEqual(fires.flatMap((f) => [['compaction_started', f.call], ['compaction_completed', f.call]]));
    for (const e of events) expect(Object.keys(e.data).filter((k) => k !== 'call').sort()).toEqual(DESIGN_EVENT_FIELDS);
    expect(events[0].data).toMatchObject({ session_id: sessionId, watermark_before: 1, threshold_or_hard_cap: 'threshold' });
  });
});
