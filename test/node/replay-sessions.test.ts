/**
 * Every strategy on every real fixture session (imported with the project's importer):
 * the replay is valid under both message rules, the openai and anthropic exports never
 * separate a tool_use from its tool_result (the validator AND an independent check on
 * the exported JSON written here), the protected turns of watermark and two-line are
 * never summarized, and the turns table is byte-identical after all the passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompaction } from '../../electron/engine/engine.js';
import { listTurnMetas, listTurns } from '../../electron/store/turns.js';
import { getVariant, listSummaries } from '../../electron/store/variants.js';
import { countTokens } from '../../electron/tokenizer.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { SummaryInfo } from '../../shared/contract.js';
import { buildReplay, validateMessages } from '../../shared/replay/index.js';
import { exportVariant, type AnthropicRequest, type OpenAiMessage } from '../../shared/export/index.js';
import { fixtureDb, turnsDump, type FixtureDb } from '../helpers/fixture-sessions.js';

/** Settings that make every strategy actually compact the small fixture sessions. */
const SETTINGS: Array<{ strategy: StrategyName; params: Record<string, number>; force?: boolean }> = [
  { strategy: 'dag', params: { freshTailCount: 4, leafChunkTokens: 1500, condensedMinFanout: 2 }, force: true },
  { strategy: 'rolling', params: { compactionCount: 50 } },
  { strategy: 'watermark', params: { softThresholdTokens: 0, preserveRecentTurns: 3 } },
  { strategy: 'two-line', params: { contextWindow: 1000, keepLast: 4, minBatch: 1, chunkChars: 4000 } },
  { strategy: 'masking', params: { maskWindow: 1 } },
  { strategy: 'window', params: { keepFirst: 1, maxTurns: 4 } },
  { strategy: 'forgetting', params: { maxSize: 6, keepFirst: 1 } },
];

/** Independent OpenAI check: tool messages follow their call directly, every call answered, arguments are JSON strings. */
function openAiProblems(messages: OpenAiMessage[]): string[] {
  const problems: string[] = [];
  let pending: Set<string> | null = null;
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!pending || !pending.has(m.tool_call_id)) problems.push(`${i}: tool message ${m.tool_call_id} answers no pending call`);
      else pending.delete(m.tool_call_id);
      return;
    }
    if (pending && pending.size > 0) problems.push(`${i}: calls ${[...pending].join(',')} not answered before a ${m.role} message`);
    pending = null;
    if (m.role === 'assistant' && m.tool_calls) {
      pending = new Set(m.tool_calls.map((c) => c.id));
      for (const c of m.tool_calls) {
        if (typeof c.function.arguments !== 'string') problems.push(`${i}: arguments of ${c.id} not a string`);
        else JSON.parse(c.function.arguments);
      }
    }
    if (m.role === 'assistant' && m.content === null && !m.tool_calls) problems.push(`${i}: empty assistant message`);
  });
  if (pending && (pending as Set<string>).size > 0) problems.push(`end: calls ${[...(pending as Set<string>)].join(',')} never answered`);
  return problems;
}

/** Independent Anthropic check: user first, alternation, results first and exactly for the previous message's calls, unique ids. */
function anthropicProblems(req: AnthropicRequest): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  req.messages.forEach((m, i) => {
    if (m.role !== (i % 2 === 0 ? 'user' : 'assistant')) problems.push(`${i}: ${m.role} breaks the alternation`);
    if (m.content.length === 0) problems.push(`${i}: empty content`);
    const uses = m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    for (const id of uses) {
      if (seen.has(id)) problems.push(`${i}: tool_use id ${id} repeated`);
      seen.add(id);
    }
    if (m.role === 'user') {
      const prev = i > 0 ? req.messages[i - 1].content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [];
      const results = m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
      if (m.content.slice(0, results.length).some((b) => b.type !== 'tool_result')) problems.push(`${i}: tool results are not first`);
      if ([...results].sort().join() !== [...prev].sort().join()) problems.push(`${i}: results [${results}] do not match the calls [${prev}]`);
    }
  });
  const last = req.messages[req.messages.length - 1];
  if (last && last.role === 'assistant' && last.content.some((b) => b.type === 'tool_use')) problems.push('end: the last assistant message has unanswered calls');
  return problems;
}

/** Every turn id a summary stands for (its own edges and its children's). */
function coveredIds(s: SummaryInfo, byId: Map<number, SummaryInfo>, out = new Set<number>()): Set<number> {
  for (const t of s.turnIds) out.add(t);
  for (const c of s.childIds) coveredIds(byId.get(c)!, byId, out);
  return out;
}

describe('replay and export on every real fixture session', () => {
  let f: FixtureDb;
  let before: string;
  beforeAll(() => {
    f = fixtureDb();
    before = turnsDump(f.db);
  });
  afterAll(() => f.close());

  it('imports the fixture sessions', () => {
    expect(f.sessions.length).toBeGreaterThan(20);
  });

  for (const { strategy, params, force } of SETTINGS) {
    it(`${strategy}: a valid replay whose openai and anthropic exports keep every tool_use with its tool_result`, async () => {
      let compacted = 0;
      let toolCallsExported = 0;
      for (const s of f.sessions) {
        const r = await runCompaction(f.db, { sessionId: s.id, strategy, params, force });
        expect(r.error, `${s.sourceFile}: ${r.error}`).toBeNull();
        if (r.status === 'completed') compacted++;
        const v = getVariant(f.db, r.variantId)!;
        const summaries = listSummaries(f.db, r.variantId);
        const replay = buildReplay({ strategy, turns: listTurns(f.db, s.id), summaries, state: v.state, params: v.params, countTokens: (t) => countTokens(t) });
        expect(validateMessages(replay.messages, 'openai'), s.sourceFile).toEqual([]);
        expect(validateMessages(replay.messages, 'anthropic'), s.sourceFile).toEqual([]);
        const input = { session: { id: s.id, title: s.title }, replay: { variantId: r.variantId, ...replay }, summaries, variant: v };
        const openai = JSON.parse(exportVariant('openai', input).content) as { messages: OpenAiMessage[] };
        const anthropic = JSON.parse(exportVariant('anthropic', input).content) as AnthropicRequest;
        expect(openAiProblems(openai.messages), s.sourceFile).toEqual([]);
        expect(anthropicProblems(anthropic), s.sourceFile).toEqual([]);
        toolCallsExported += openai.messages.reduce((n, m) => n + (m.role === 'assistant' && m.tool_calls ? m.tool_calls.length : 0), 0);

        // The protected turns are never summarized.
        const metas = listTurnMetas(f.db, s.id);
        const conv = metas.filter((m) => m.role !== 'system');
        const protectedCount = strategy === 'watermark' ? params.preserveRecentTurns : strategy === 'two-line' ? params.keepLast : strategy === 'dag' ? params.freshTailCount : 0;
        const byId = new Map(summaries.map((x) => [x.id, x]));
        for (const sum of summaries) for (const id of conv.slice(conv.length - protectedCount).map((m) => m.id)) expect(coveredIds(sum, byId).has(id), `${s.sourceFile} s${sum.id}`).toBe(false);
      }
      expect(compacted).toBeGreaterThan(5);
      expect(toolCallsExported).toBeGreaterThan(0);
      expect(turnsDump(f.db)).toBe(before);
    });
  }
});
