/**
 * The comparison (shared/compare/, electron/services/compare.ts): turn fates on a
 * hand-built session where every fate is known, then two real variants of the spotter
 * session (dag and rolling, replayed with their defaults and the extractive summarizer)
 * beside Claude Code's own compaction at turn 207 and a "compact as of call 102" pass.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFiles } from '../../electron/importers/import.js';
import { runReplay } from '../../electron/engine/replay.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { compareVariants } from '../../electron/services/compare.js';
import { countTokens } from '../../electron/tokenizer.js';
import { buildReplay } from '../../shared/replay/index.js';
import { sameSpanGroups, turnFates } from '../../shared/compare/index.js';
import type { ContentBlock, Role, Turn } from '../../shared/model/turn.js';
import type { SummaryInfo } from '../../shared/contract.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

function turn(position: number, role: Role, blocks: ContentBlock[] | string): Turn {
  const b: ContentBlock[] = typeof blocks === 'string' ? [{ type: 'text', text: blocks }] : blocks;
  return { id: 100 + position, sessionId: 1, position, role, blocks: b, charCount: 0, tokenCount: 0, timestamp: null, model: null, agentId: null, sourceIds: [] };
}
const use = (id: string): ContentBlock => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } });
const result = (id: string, content: string): ContentBlock => ({ type: 'tool_result', tool_use_id: id, content, is_error: false });
const SESSION: Turn[] = [
  turn(0, 'system', 'You are helpful.'),
  turn(1, 'user', 'list files'),
  turn(2, 'assistant', [use('call_1')]),
  turn(3, 'user', [result('call_1', 'a.txt b.txt '.repeat(40))]),
  turn(4, 'assistant', 'There are two files.'),
  turn(5, 'user', 'read a.txt'),
  turn(6, 'assistant', [use('call_2')]),
  turn(7, 'user', [result('call_2', 'hello')]),
  turn(8, 'assistant', 'It says hello.'),
];
const count = (t: string) => countTokens(t);
function leaf(id: number, first: number, last: number): SummaryInfo {
  return { id, variantId: 1, runId: 1, kind: 'leaf', depth: 0, text: `turns ${first}-${last}`, tokenCount: 5, charCount: 11, tier: 'normal', model: 'm', promptVersion: '1', cacheHit: false, compacted: false, firstPosition: first, lastPosition: last, childIds: [], turnIds: [], createdAt: '' };
}

describe('turn fates', () => {
  it('masking: the old tool result is masked, every other turn verbatim', () => {
    const r = buildReplay({ strategy: 'masking', turns: SESSION, summaries: [], state: { maskBoundary: 6 }, params: { maskWindow: 1 }, countTokens: count });
    expect(turnFates(SESSION, r.messages, []).fates).toEqual(['verbatim', 'verbatim', 'verbatim', 'masked', 'verbatim', 'verbatim', 'verbatim', 'verbatim', 'verbatim']);
  });

  it('window: the dropped range is dropped, the system prompt stays', () => {
    const r = buildReplay({ strategy: 'window', turns: SESSION, summaries: [], state: { droppedRanges: [[0, 4]] }, params: {}, countTokens: count });
    expect(turnFates(SESSION, r.messages, []).fates).toEqual(['verbatim', 'dropped', 'dropped', 'dropped', 'dropped', 'verbatim', 'verbatim', 'verbatim', 'verbatim']);
  });

  it('dag: covered turns are summarized into the summary sent; a result whose call was summarized is reshaped (made text)', () => {
    const s = leaf(1, 1, 6);
    const r = buildReplay({ strategy: 'dag', turns: SESSION, summaries: [s], state: {}, params: {}, countTokens: count });
    const f = turnFates(SESSION, r.messages, [s]);
    expect(f.fates).toEqual(['verbatim', 'summarized', 'summarized', 'summarized', 'summarized', 'summarized', 'summarized', 'reshaped', 'verbatim']);
    expect(f.summaryIds).toEqual([null, 1, 1, 1, 1, 1, 1, null, null]);
  });

  it('groups summaries of different columns whose ranges overlap, and only those', () => {
    const col = (key: string, ranges: Array<[number, number, number]>) => ({ key, contextTokens: null, viewTokens: 0, messages: 0, segments: [], counts: { verbatim: 0, reshaped: 0, masked: 0, summarized: 0, dropped: 0 }, summaries: ranges.map(([id, a, b]) => ({ id, kind: 'leaf', depth: 0, firstPosition: a, lastPosition: b, tokens: 1, text: '' })) });
    const g = sameSpanGroups([col('a', [[1, 0, 10], [2, 30, 40]]), col('b', [[3, 5, 20], [4, 50, 60]])]);
    expect(g.map((x) => [x.from, x.to, x.summaries.map((s) => `${s.key}${s.id}`)])).toEqual([[0, 20, ['a1', 'b3']]]);
  });
});

describe('compare on the spotter session', () => {
  let tmp: TempDb;
  let sessionId: number;
  let dag: number;
  let rolling: number;
  beforeAll(async () => {
    tmp = tempDb('cs-compare-', 'studio.sqlite');
    [{ id: sessionId }] = importFiles(tmp.db, [path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl')]).sessions;
    dag = (await runReplay(tmp.db, { sessionId, strategy: 'dag' })).variantId;
    rolling = (await runReplay(tmp.db, { sessionId, strategy: 'rolling' })).variantId;
  }, 120_000);
  afterAll(() => tmp.cleanup());

  it('totals: each replay and the two baselines, as their timelines give them', () => {
    const c = compareVariants(tmp.db, { sessionId, variantIds: [dag, rolling] });
    expect(c.columns.map((x) => [x.key, x.status])).toEqual([[`v${dag}`, 'replayed'], [`v${rolling}`, 'replayed'], ['none', 'baseline'], ['source', 'baseline']]);
    // 152 model calls (the session's assistant turns). Costs with prompt caching, each call at its
    // model (shared/replay/timeline.ts); dag and rolling both fire once, at call 78. Before it, each
    // call is the source's own call and costs what the source was billed.
    expect(c.calls).toBe(152);
    expect(c.totals[`v${dag}`]).toMatchObject({ modelCalls: 152, costUsd: 10.098098, peakContext: 147739, firings: 1 });
    expect(c.totals[`v${rolling}`]).toMatchObject({ modelCalls: 152, costUsd: 12.132197, peakContext: 147739, firings: 1 });
    expect(c.totals.none).toMatchObject({ costUsd: 14.37453, peakContext: 204440, firings: 0 });
    // Claude Code's own record: one compaction, its reported peak 166,759 tokens; its main session's
    // calls ($11.853923), its compaction call ($0.108414) and its subagent's ($0.263394).
    expect(c.totals.source).toMatchObject({ costUsd: 12.225731, peakContext: 166759, firings: 1 });
    expect(c.series!.firings).toEqual({ [`v${dag}`]: [78], [`v${rolling}`]: [78], none: [], source: [102] });
    expect(c.series!.context[`v${dag}`]).toHaveLength(152);
  });

  it("opens at call 102, where Claude Code compacted, and reads each context turn by turn", () => {
    const c = compareVariants(tmp.db, { sessionId, variantIds: [dag, rolling] });
    const ctx = c.context!;
    // Call 102 is the assistant turn at 207, Claude Code's compact boundary: the context holds turns 0-206.
    expect([ctx.call, ctx.position]).toEqual([102, 207]);
    const seg = (key: string) => ctx.columns.find((x) => x.key === key)!.segments.map((s) => `${s.from}-${s.to} ${s.fate}${s.summaryId !== null ? ` #${s.summaryId}` : ''}`);
    // dag's condensed summary (8 leaves folded into it at call 78) covers turns 0-142; the fresh tail is sent.
    expect(seg(`v${dag}`)).toEqual(['0-142 summarized #8', '143-206 verbatim']);
    // rolling's one summary (made at call 78) covers the turns before its pointer, 0-46.
    expect(seg(`v${rolling}`)).toEqual(['0-46 summarized #9', '47-206 verbatim']);
    expect(seg('none')).toEqual(['0-206 verbatim']);
    // Claude Code's summary replaced turns 0-206 (external compaction 1).
    expect(seg('source')).toEqual(['0-206 summarized #1']);
    const col = (key: string) => ctx.columns.find((x) => x.key === key)!;
    expect([col(`v${dag}`).contextTokens, col(`v${rolling}`).contextTokens, col('none').contextTokens, col('source').contextTokens]).toEqual([49085, 92829, 165515, 33960]);
    // The diff: where the four columns treat the turns differently (0-46, 47-142, 143-206).
    expect(ctx.diff.map((r) => [r.from, r.to, r.fates.join('/')])).toEqual([
      [0, 46, 'summarized/summarized/verbatim/summarized'],
      [47, 142, 'summarized/verbatim/verbatim/summarized'],
      [143, 206, 'verbatim/verbatim/verbatim/summarized'],
    ]);
    // The same span summarized three ways, narrowest first: rolling #9 (0-46), dag #8 (0-142), Claude Code's (0-206).
    expect(ctx.sameSpan.map((g) => [g.from, g.to, g.summaries.map((s) => `${s.key}#${s.id}`)])).toEqual([[0, 206, [`v${rolling}#9`, `v${dag}#8`, 'source#1']]]);
    expect(ctx.sameSpan[0].summaries[2].text).toMatch(/^This session is being continued from a previous conversation/);
  });

  it('facts at call 102: which facts of the compacted turns survive in one column and not the other', () => {
    const f = compareVariants(tmp.db, { sessionId, variantIds: [dag, rolling] }).context!.facts;
    // Claude Code summarized every turn 0-206, so the compacted turns are all 207 of them, and
    // their facts are those of its baseline ledger: 101 (request 1, path 28, command 41, error 5,
    // identifier 23, number 3; summary-ledger.test.ts CC_RETENTION), of which its summary keeps 41.
    expect(f.columnKeys).toEqual([`v${dag}`, `v${rolling}`, 'source']);
    expect([f.compactedTurns, f.total]).toEqual([207, 101]);
    expect(f.kept[2]).toBe(41);
    // Pinned: dag keeps 59 (its hand-off of 0-142 spends its budget on the hand-off, not on
    // every fact the ledger counts; 143-206 are verbatim), rolling 95 (it summarized only 0-46
    // and sends 47-206 verbatim); 65 facts are kept by some and lost by others.
    expect(f.kept).toEqual([59, 95, 41]);
    expect(f.differing).toBe(65);
    expect(f.rows).toHaveLength(101);
    // The most salient fact they disagree on: a file dag's hand-off of 0-142 left out and rolling and Claude Code kept.
    expect(f.rows.find((r) => r.differs)).toEqual({ category: 'path', text: 'assets/js/app.js', detail: 'edited, read', salience: 4.33, survives: [false, true, true], differs: true });
    // Rows are by salience, highest first; `differs` is true when the columns disagree.
    for (let i = 1; i < f.rows.length; i++) expect(f.rows[i - 1].salience).toBeGreaterThanOrEqual(f.rows[i].salience);
    expect(f.rows.filter((r) => r.differs).length).toBe(f.differing);
    for (const r of f.rows) expect(r.differs).toBe(r.survives.some((x) => x !== r.survives[0]));
  });

  it('a variant without a replay is a not-replayed column; a call out of range is refused', async () => {
    const masking = (await runCompaction(tmp.db, { sessionId, strategy: 'masking' })).variantId;
    const c = compareVariants(tmp.db, { sessionId, variantIds: [dag, masking], call: 120 });
    expect(c.columns.find((x) => x.variantId === masking)).toMatchObject({ status: 'not-replayed', runId: null });
    expect(c.totals[`v${masking}`]).toBeNull();
    // Its context is not guessed: the call's columns are the replayed variant and the baselines.
    expect(c.context!.columns.map((x) => x.key)).toEqual([`v${dag}`, 'none', 'source']);
    expect(() => compareVariants(tmp.db, { sessionId, variantIds: [dag], call: 152 })).toThrow(/call 152 is out of range: the session has 152 model calls/);
  });
});
