/**
 * The loss ledger per replay firing (shared/replay/firing-ledger.ts): the facts
 * of the turns a firing compacted against the WHOLE context the model receives at the call
 * right after it (summaries and verbatim turns), on the real spotter session.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FIRING_LEDGERS, runReplay } from '../../electron/engine/replay.js';
import { runCompaction } from '../../electron/engine/engine.js';
import { getVariant, listRuns } from '../../electron/store/variants.js';
import { retentionBySession, retentionOfRuns } from '../../electron/store/summary-facts.js';
import { buildReplay } from '../../shared/replay/build.js';
import { FIRING_LEDGER_BUDGET, firingLedger, ledgerGroupEnds } from '../../shared/replay/firing-ledger.js';
import { importFiles } from '../../electron/importers/import.js';
import { listReplaySummaries } from '../../electron/store/variants.js';
import { listTurns, searchSummaries, searchTurns } from '../../electron/store/turns.js';
import { runCli } from '../../electron/cli/run.js';
import { replayContextAt } from '../../electron/services/replays.js';
import { contextText } from '../../shared/facts/context.js';
import { extractFacts, ledgerOf, summaryLedgerOf } from '../../shared/facts/index.js';
import { messagesText, textRetention } from '../../shared/retention/text.js';
import { turnsToItems } from '../../shared/model/items.js';
import type { ReplayTimeline } from '../../shared/contract.js';
import { replayStateAt } from '../../electron/store/replays.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

/** All eight of the replay's summaries say "mix" (its seven leaves, whose commands are `mix …`, and the condensation), by the regex derivation in the test. */
const MIX_HITS = 8;
/**
 * window on spotter: 146 firings, the last at call 151 (turn 305), dropping turns 1–294 (294
 * conversation turns); of their 141 facts 15 survive in the context at that call (derived when
 * the replay measured them in one ledger, before the firing ledger was made faster; the pass at
 * the session's end measures the same, below).
 */
const PINNED_WINDOW = {
  where: [146, 151, 305, 1, 294],
  retention: {
    request: { kept: 0, total: 0 },
    todo: { kept: 0, total: 0 },
    path: { kept: 1, total: 43 },
    command: { kept: 4, total: 54 },
    error: { kept: 0, total: 5 },
    identifier: { kept: 9, total: 32 },
    number: { kept: 1, total: 7 },
  },
};
let t: TempDb;
let sessionId: number;
let tl: ReplayTimeline;
beforeAll(async () => {
  t = tempDb('cs-firing-ledger-');
  sessionId = importFiles(t.db, [SPOTTER]).sessions[0].id;
  const r = await runReplay(t.db, { sessionId, strategy: 'dag' });
  tl = r.timeline!;
});
afterAll(() => t.cleanup());

describe('the ledger of a replay firing', { timeout: 120_000 }, () => {
  it('dag on spotter: one firing at call 78 compacts turns 0–142; its ledger is their facts against the whole context at that call', () => {
    // dag with its defaults fires once on spotter: at call 78 (turn 159) it makes seven leaves
    // over turns 0–142 and condenses them at once (condensed, depth 1, turns 0–142); the fresh
    // tail 143–158 stays verbatim. So the compacted span is exactly turns 0–142.
    expect(tl.events.map((e) => [e.call, e.turn, e.kind])).toEqual([[78, 159, 'fire']]);
    const e = tl.events[0];
    const made = listReplaySummaries(t.db, tl.runId).filter((s) => e.summaryIds.includes(s.id));
    const top = made.find((s) => s.kind === 'condensed')!;
    expect([top.depth, top.firstPosition, top.lastPosition, made.length]).toEqual([1, 0, 142, 8]);
    // Its spans are the seven leaves' spans of turns; the condensation is a summary, not a span.
    expect(e.spans).toBe(7);

    // Derived independently: the facts of turns 0–142 read from the store, matched against the
    // messages the replay's context service builds for call 78 (what the model receives).
    const span = extractFacts(turnsToItems(listTurns(t.db, sessionId, { from: 0, to: 143 })));
    const context = replayContextAt(t.db, tl.runId, 78).messages;
    const seen = contextText(context);
    // Beside it, the text-level score of the same turns against the same context.
    expect(e.ledger).toEqual({ ...summaryLedgerOf(ledgerOf(span, seen)), text: textRetention(listTurns(t.db, sessionId, { from: 0, to: 143 }), messagesText(context)) });
    // Pinned: all 71 facts survive (request 1/1, path 20/20, command 36/36, error 1/1,
    // identifier 11/11, number 2/2; no todo was open at turn 142): the fact-based extractive
    // summarizer carries every fact of the seven leaves into the condensation.
    expect(e.ledger!.retention).toEqual({
      request: { kept: 1, total: 1 },
      todo: { kept: 0, total: 0 },
      path: { kept: 8, total: 20 },
      command: { kept: 9, total: 36 },
      error: { kept: 1, total: 1 },
      identifier: { kept: 10, total: 11 },
      number: { kept: 0, total: 2 },
    });

    // The condensed summary's text alone keeps no more than the whole context does.
    const bySummaryAlone = ledgerOf(span, top.text).retention;
    for (const c of ['path', 'command', 'identifier', 'number'] as const) expect(bySummaryAlone[c].kept, c).toBeLessThanOrEqual(e.ledger!.retention[c].kept);
  });

  it('the per-summary ledger stays the summary against its own text', () => {
    const e = tl.events[0];
    const top = listReplaySummaries(t.db, tl.runId).find((s) => e.summaryIds.includes(s.id) && s.kind === 'condensed')!;
    // The condensation's span facts are its children's merged (summary-ledger.ts): 20 paths and 36 commands, 8 and 9 of them in its text.
    expect([top.ledger!.retention.path, top.ledger!.retention.command]).toEqual([{ kept: 8, total: 20 }, { kept: 9, total: 36 }]);
  });
});

describe('the ledger of a pass that writes no summary (window, masking, forgetting)', { timeout: 120_000 }, () => {
  it('a window pass on spotter records its dropped turns against the context it leaves; a second pass reports the same; the variant table reads it', async () => {
    const first = await runCompaction(t.db, { sessionId, strategy: 'window', params: {} });
    expect(first.status).toBe('completed');
    const state = getVariant(t.db, first.variantId)!.state;
    // Window keeps the first conversation turn and the last 10 (tool-cycle safe): one dropped range.
    expect(state.droppedRanges).toHaveLength(1);
    const [a, b] = state.droppedRanges![0];
    const turns = listTurns(t.db, sessionId);
    // Derived independently: the facts of the dropped range's turns against the text of the
    // messages the model receives under that state.
    const dropped = turns.filter((x) => x.position >= a && x.position <= b && x.role !== 'system');
    const messages = buildReplay({ strategy: 'window', turns, summaries: [], state, params: getVariant(t.db, first.variantId)!.params as Record<string, number>, countTokens: (s) => Math.ceil(s.length / 4) }).messages;
    const expected = { ...summaryLedgerOf(ledgerOf(extractFacts(turnsToItems(dropped)), contextText(messages))), text: textRetention(dropped, messagesText(messages)) };
    const ledgerOfRun = (runId: number) => listRuns(t.db, first.variantId).find((r) => r.id === runId)!.events.find((e) => e.kind === 'ledger')?.data.ledger;
    expect(ledgerOfRun(first.runId)).toEqual(expected);
    // The pass at the session's end drops what the replay's last firing drops (turns 1-294) and
    // so measures the same: 15 of the 141 facts (PINNED_WINDOW).
    expect([a, b]).toEqual(PINNED_WINDOW.where.slice(3));
    expect(expected.retention).toEqual(PINNED_WINDOW.retention);

    const second = await runCompaction(t.db, { sessionId, strategy: 'window', params: {}, force: true });
    expect(ledgerOfRun(second.runId)).toEqual(expected);
    expect(retentionOfRuns(t.db, [{ runId: second.runId, variantId: second.variantId, kind: 'pass' }]).get(second.runId)).toEqual(expected.retention);
    expect(retentionBySession(t.db, sessionId).get(second.variantId)).toEqual({ retention: expected.retention, text: expected.text });
  });
});

describe('which firings carry a ledger (ledgerGroupEnds)', () => {
  const sumMeasured = (positions: number[], ends: boolean[]) => positions.reduce((n, p, i) => n + (ends[i] ? p : 0), 0);
  it('every firing while few and early enough: at most 64, positions summing to at most 2 × the turns', () => {
    expect(ledgerGroupEnds([100, 200, 300, 900], 1000)).toEqual([true, true, true, true]);
    expect(ledgerGroupEnds([], 1000)).toEqual([]);
  });
  it('beyond that, the last firing of each of 3 equal stretches of turns, the last firing always', () => {
    // 20 firings every 500 turns of a 10,000-turn session sum to 105,000 > 20,000: grouped.
    const spread = Array.from({ length: 20 }, (_, i) => (i + 1) * 500);
    const ends = ledgerGroupEnds(spread, 10_000);
    // Stretches end at turns 3,333, 6,666 and 10,000.
    expect(spread.filter((_, i) => ends[i])).toEqual([3000, 6500, 10000]);
    expect(sumMeasured(spread, ends)).toBeLessThanOrEqual(2 * 10_000);
    // A firing at every other turn of 100,000 (a window): 3 ledgers, their prefixes within the budget.
    const every = Array.from({ length: 50_000 }, (_, i) => 2 * i + 2);
    const e2 = ledgerGroupEnds(every, 100_000);
    expect(e2.filter(Boolean)).toHaveLength(3);
    expect(e2[e2.length - 1]).toBe(true);
    expect(sumMeasured(every, e2)).toBeLessThanOrEqual(2 * 100_000);
  });
});

describe('grouped ledgers for a replay that fires at nearly every call', { timeout: 120_000 }, () => {
  it('window on spotter: the last firing of each of 3 stretches carries one ledger over what its stretch dropped, against the context at that call', async () => {
    const r = await runReplay(t.db, { sessionId, strategy: 'window' });
    const w = r.timeline!;
    // window (keepFirst 1, maxTurns 10) fires at every call once the session holds more than 11
    // conversation turns: far more firings than MAX_FIRING_LEDGERS, so the 306 turns are cut into
    // min(64, 146, 2 × FIRING_LEDGER_BUDGET − 1) = 3 stretches and the last firing of each is measured.
    expect(w.events.length).toBeGreaterThan(MAX_FIRING_LEDGERS);
    // Each firing drops one span of turns (and makes no summary).
    expect(w.events.every((e) => e.spans === 1 && e.summaryIds.length === 0)).toBe(true);
    const ends = ledgerGroupEnds(w.events.map((e) => e.turn), 306);
    expect(w.events.map((e) => e.ledger !== null)).toEqual(ends);
    const measured = w.events.filter((e) => e.ledger !== null);
    expect(measured).toHaveLength(2 * FIRING_LEDGER_BUDGET - 1);
    const last = w.events[w.events.length - 1];
    expect(measured[measured.length - 1]).toBe(last);

    // Derived independently, group by group: a window state drops one range [1, b]; a group's
    // compacted turns are the conversation turns dropped at its last firing and not at the
    // previous measured one, read from the store; the context is what the replay's context
    // service builds at that call.
    let droppedBefore = 0;
    let covered = 0;
    for (const e of measured) {
      const state = replayStateAt(t.db, w.runId, e.call);
      expect(state.droppedRanges).toHaveLength(1);
      const [first, lastDropped] = state.droppedRanges![0];
      expect(first).toBe(1);
      const dropped = listTurns(t.db, sessionId, { from: Math.max(first, droppedBefore + 1), to: lastDropped + 1 }).filter((x) => x.role !== 'system');
      const context = replayContextAt(t.db, w.runId, e.call).messages;
      const seen = contextText(context);
      expect(e.ledger).toEqual({ ...summaryLedgerOf(ledgerOf(extractFacts(turnsToItems(dropped)), seen)), text: textRetention(dropped, messagesText(context)) });
      covered += dropped.length;
      droppedBefore = lastDropped;
    }
    // The groups partition what the window dropped by its last firing: turns 1-294.
    expect([w.events.length, last.call, last.turn, 1, droppedBefore]).toEqual(PINNED_WINDOW.where);
    expect(covered).toBe(294);
  });
});

describe('a grouped ledger compares with the previous measured firing at ITS call', { timeout: 120_000 }, () => {
  it('masking on spotter: each stretch measures the tool results it newly masked, and the stretches add up to the whole session measured at once', async () => {
    const r = await runReplay(t.db, { sessionId, strategy: 'masking' });
    const events = r.timeline!.events;
    // 139 firings (a new tool cycle at nearly every call): grouped into 3 stretches of turns.
    expect(events.length).toBe(139);
    const measured = events.filter((e) => e.ledger !== null);
    expect(measured.map((e) => e.call)).toEqual([49, 100, 150]);
    // Masking derives what it hides from the turns (the last 10 tool cycles keep their results),
    // so each stretch's "before" is built over the turns of the previous measured call: a stretch
    // counts the results it newly masked. Masked tool output carries few facts here: five errors,
    // all among the results masked in the second stretch (turns 102-203), four of them repeated
    // where the context still shows them.
    expect(measured.map((e) => sumOf(e.ledger!.retention))).toEqual([
      [0, 0],
      [4, 5],
      [0, 0],
    ]);
    // The whole session at once (the state at the last call against no compaction) measures the same.
    const all = listTurns(t.db, sessionId).slice(0, events[events.length - 1].turn);
    const once = firingLedger({ strategy: 'masking', params: { maskWindow: 10 }, turns: all, before: { summaries: [], state: {} }, after: { summaries: [], state: replayStateAt(t.db, r.runId, events[events.length - 1].call) }, countTokens: (x) => Math.ceil(x.length / 4) });
    expect(sumOf(once!.ledger.retention)).toEqual([4, 5]);
  });
});

const sumOf = (r: Record<string, { kept: number; total: number }>) => [Object.values(r).reduce((n, c) => n + c.kept, 0), Object.values(r).reduce((n, c) => n + c.total, 0)];

describe('search over summary text beside turns', { timeout: 120_000 }, () => {
  it('"did `mix` survive?": summary hits carry their variant, kind and replay call; the CLI prints them beside turn hits', async () => {
    const sums = listReplaySummaries(t.db, tl.runId);
    // Derived: the replay's summaries whose text holds the token "mix" (FTS unicode61: case-folded whole tokens).
    const expected = sums.filter((s) => /(^|[^\p{L}\p{N}])mix([^\p{L}\p{N}]|$)/iu.test(s.text)).map((s) => s.id).sort((a, b) => a - b);
    const hits = searchSummaries(t.db, 'mix');
    expect(hits.map((h) => h.summaryId).sort((a, b) => a - b)).toEqual(expected);
    expect(hits.length).toBe(MIX_HITS);
    // The answer the search gives: the leaves say `mix` and were folded at call 78 into the
    // condensation, which says it too and stays live: `mix` survived in what the model sees.
    expect(hits.every((h) => h.replayRunId === tl.runId && h.callIndex === 78 && h.variantId === tl.variantId && h.strategy === 'dag')).toBe(true);
    expect(hits.map((h) => `${h.kind}:${h.compacted}`).sort()).toEqual(['condensed:false', ...Array(7).fill('leaf:true')]);
    const top = hits.find((h) => h.firstPosition === 95)!;
    expect(top).toMatchObject({ sessionId, depth: 0, firstPosition: 95, lastPosition: 142 });
    expect(top.snippet).toContain('[mix] test');
    // A word no summary holds: no summary hit, while the turns still have it.
    expect(searchSummaries(t.db, 'XEWRD9')).toEqual([]);
    // The CLI prints both: turn hits as before (`hits`) and `summaryHits`.
    let stdout = '';
    const code = await runCli(['search', 'mix', '--db', t.dbPath, '--json'], { stdout: { write: (x: string) => (stdout += x) }, stderr: { write: () => {} }, env: { PATH: process.env.PATH }, cwd: t.dir });
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { hits: unknown[]; summaryHits: unknown[] };
    expect(out.hits).toEqual(JSON.parse(JSON.stringify(searchTurns(t.db, 'mix'))));
    expect(out.summaryHits).toEqual(JSON.parse(JSON.stringify(hits)));
    let human = '';
    await runCli(['search', 'mix', '--db', t.dbPath], { stdout: { write: (x: string) => (human += x) }, stderr: { write: () => {} }, env: { PATH: process.env.PATH }, cwd: t.dir });
    expect(human).toContain(`s${top.summaryId} leaf d0 (folded)`);
    expect(human).toContain(`replay #${tl.runId}`);
  });
});
