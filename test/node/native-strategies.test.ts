/**
 * The native strategies `codex` and `claude-code` on real data: where each fires on the spotter
 * fixture session (Claude Code's own automatic compaction is recorded there: compact_boundary,
 * preTokens 167,094, before call 102), what codex keeps verbatim, and the prompts their passes ask for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDb, sessionBySource, type FixtureDb } from '../helpers/fixture-sessions.js';
import { checkSessionReplay } from '../../electron/engine/replay-check.js';
import { loadReplaySource } from '../../electron/engine/engine.js';
import { replayInputs } from '../../shared/replay/timeline.js';
import { isUserMessage, keptUserMessages } from '../../shared/strategies/native.js';
import { buildPrompt } from '../../shared/summarize/prompts.js';

const SPOTTER = 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl';

describe('native strategies on the spotter session', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it("claude-code fires one call after Claude Code's own automatic compaction", async () => {
    const s = sessionBySource(f, SPOTTER);
    const calls = replayInputs(loadReplaySource(f.db, s.id)).calls;
    // Claude Code compacted after call 101 (reported 166,759 + its 301 output tokens ≈ preTokens 167,094):
    // from call 102 on the source reports no context for the uncompacted transcript.
    expect(calls[101].reportedContext).toBe(166759);
    expect(calls[102].reportedContext ?? null).toBeNull();
    const r = await checkSessionReplay(f.db, { sessionId: s.id, strategy: 'claude-code' });
    expect(r.agree).toBe(true);
    expect(r.fast.firings.map((x) => x.call)).toEqual([103]);
    expect(r.fast.firings[0].figure).toBeGreaterThanOrEqual(167000);
    // At call 102 the usage fit's estimate stays under the line: the one-call difference.
    expect(r.fast.contexts[102]).toBeLessThan(167000);
    // One summary of the whole history before the call.
    expect(r.fast.firings[0].spans).toEqual([[0, 208]]);
  });

  it('codex fires where the context first reaches its limit, capped at 90% of the window', async () => {
    const s = sessionBySource(f, SPOTTER);
    // The default 244,800 line (90% of 272,000) is never reached in this session.
    const byDefault = await checkSessionReplay(f.db, { sessionId: s.id, strategy: 'codex' });
    expect(byDefault.fast.firings).toEqual([]);
    const r = await checkSessionReplay(f.db, { sessionId: s.id, strategy: 'codex', params: { autoCompactTokenLimit: 150000 } });
    expect(r.agree).toBe(true);
    expect(r.fast.firings[0]).toMatchObject({ call: 78, figure: 150223 });
    // A limit above 90% of the window is capped: 190,000 on a 200,000 window compacts at 180,000.
    const capped = await checkSessionReplay(f.db, { sessionId: s.id, strategy: 'codex', params: { contextWindow: 200000, autoCompactTokenLimit: 190000 } });
    const at180k = await checkSessionReplay(f.db, { sessionId: s.id, strategy: 'codex', params: { contextWindow: 200000, autoCompactTokenLimit: 180000 } });
    expect(capped.fast.firings.length).toBeGreaterThan(0);
    expect(capped.fast.firings).toEqual(at180k.fast.firings);
    expect(capped.fast.firings[0].figure).toBeGreaterThanOrEqual(180000);
  });

  it('codex keeps the newest user messages verbatim within 20,000 tokens, the oldest kept one truncated', () => {
    const s = sessionBySource(f, SPOTTER);
    const metas = loadReplaySource(f.db, s.id).metas;
    const users = metas.filter(isUserMessage);
    expect(users.length).toBeGreaterThan(3);
    const all = keptUserMessages(metas, 209, 20000);
    const before = users.filter((m) => m.position < 209);
    const total = before.reduce((a, m) => a + m.tokenCount, 0);
    // The spotter user messages before the cut fit the budget: every one is kept, whole, in order.
    expect(total).toBeLessThanOrEqual(20000);
    expect(all.map((k) => k.position)).toEqual(before.map((m) => m.position));
    expect(all.every((k) => !k.truncated)).toBe(true);
    // A budget smaller than the newest two: the newest whole, the next truncated to what is left, nothing older.
    const newest = before[before.length - 1];
    const budget = newest.tokenCount + 1;
    const small = keptUserMessages(metas, 209, budget);
    expect(small.map((k) => [k.position, k.tokens, k.truncated])).toEqual([
      [before[before.length - 2].position, 1, true],
      [newest.position, newest.tokenCount, false],
    ]);
  });

  it("asks each tool's own prompt: Codex's handoff format, Claude Code's nine sections", () => {
    const codex = buildPrompt({ purpose: 'codex', items: [{ kind: 'turn', role: 'user', text: 'fix the build' }], targetTokens: 2000, tier: 'normal' });
    expect(codex.templateId).toBe('codex');
    expect(codex.system).toContain('You are performing a CONTEXT CHECKPOINT COMPACTION.');
    for (const h of ['- Active task:', '- Progress so far:', '- Next steps (active task only):', '- Key context / constraints / preferences (still relevant only):', '- Completed tasks (optional, brief):']) expect(codex.system).toContain(h);
    const cc = buildPrompt({ purpose: 'claude-code', items: [{ kind: 'turn', role: 'user', text: 'fix the build' }], targetTokens: 4000, tier: 'normal' });
    expect(cc.templateId).toBe('claude-code');
    const sections = ['1. Primary Request and Intent:', '2. Key Technical Concepts:', '3. Files and Code Sections:', '4. Errors and fixes:', '5. Problem Solving:', '6. All user messages:', '7. Pending Tasks:', '8. Current Work:', '9. Optional Next Step:'];
    let at = -1;
    for (const h of sections) {
      const i = cc.system.indexOf(h, at + 1);
      expect(i, h).toBeGreaterThan(at);
      at = i;
    }
    expect(cc.system).toContain('<analysis>');
  });
});
