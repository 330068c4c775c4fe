/**
 * The loss ledger stored when a summary is written (migration 008, electron/engine/
 * summary-ledger.ts): pass summaries, replay summaries and firings, the variant's
 * retention, Claude Code's own summary as the baseline, and the `ledger` CLI command.
 * On the real spotter session (Claude Code compacted turns 0–206 at turn 207).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompaction } from '../../electron/engine/engine.js';
import { MAX_FIRING_LEDGERS, runReplay } from '../../electron/engine/replay.js';
import { importFiles } from '../../electron/importers/import.js';
import { listReplaySummaries, listSummaries, listVariants } from '../../electron/store/variants.js';
import { listTurns } from '../../electron/store/turns.js';
import { getSpanFacts } from '../../electron/store/summary-facts.js';
import { deleteSession } from '../../electron/store/sessions.js';
import { turnRangeFacts } from '../../electron/engine/summary-ledger.js';
import { sessionDetail } from '../../electron/services/session-views.js';
import { runCli } from '../../electron/cli/run.js';
import { ledgerOf, mergeFactSets, summaryLedgerOf, sumRetention, type FactSet, type SummaryLedger } from '../../shared/facts/index.js';
import { textRetention } from '../../shared/retention/text.js';
import type { LedgerReport } from '../../shared/contract.js';
import { FIXTURES, SPOTTER_CC_RETENTION } from '../helpers/fixture-sessions.js';
import { tempDb, type TempDb } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code/spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');

/** Claude Code's summary of turns 0–206 against the facts of those turns (derived in facts.test.ts). */
const CC_RETENTION = SPOTTER_CC_RETENTION;

let t: TempDb;
let sessionId: number;
beforeAll(() => {
  t = tempDb('cs-ledger-');
  sessionId = importFiles(t.db, [SPOTTER]).sessions[0].id;
});
afterAll(() => t.cleanup());

describe('the loss ledger stored with each summary', { timeout: 120_000 }, () => {
  it('a dag pass stores span facts and a ledger for every summary; a leaf ledger is its span against its text', async () => {
    const r = await runCompaction(t.db, { sessionId, strategy: 'dag', force: true });
    expect(r.status).toBe('completed');
    const summaries = listSummaries(t.db, r.variantId);
    expect(summaries.length).toBeGreaterThan(1);
    for (const s of summaries) expect(s.ledger, `summary ${s.id}`).toBeTruthy();
    const leaf = summaries.find((s) => s.kind === 'leaf')!;
    const span = turnRangeFacts(t.db, sessionId, leaf.firstPosition, leaf.lastPosition);
    expect(getSpanFacts(t.db, leaf.id)).toEqual(JSON.parse(JSON.stringify(span)));
    // With the text-level score of the same turns against the same text beside it.
    expect(leaf.ledger).toEqual({ ...summaryLedgerOf(ledgerOf(span, leaf.text)), text: textRetention(listTurns(t.db, sessionId, { from: leaf.firstPosition, to: leaf.lastPosition + 1 }), leaf.text) });
    // A condensation's span facts are its children's merged: its totals cover at least each child's largest category.
    const condensed = summaries.find((s) => s.kind === 'condensed');
    if (condensed) {
      const children = summaries.filter((s) => condensed.childIds.includes(s.id));
      for (const c of children) expect(condensed.ledger!.retention.command.total).toBeGreaterThanOrEqual(c.ledger!.retention.command.total);
    }
    // The variant's retention sums its live summaries' ledgers.
    const v = listVariants(t.db, sessionId).find((x) => x.id === r.variantId)!;
    const live = summaries.filter((s) => !s.compacted).map((s) => (s.ledger as SummaryLedger).retention);
    expect(v.retention).toEqual(sumRetention(live));
  });

  it('Claude Code\'s own summary is the baseline: on the session, in a replay timeline\'s source events, and per firing', async () => {
    const detail = sessionDetail(t.db, sessionId);
    expect(detail.externalCompactions_).toHaveLength(1);
    expect(detail.externalCompactions_[0].ledger!.retention).toEqual(CC_RETENTION);
    expect(detail.externalCompactions_[0].ledger!.lost.slice(0, 3).map((e) => e.text)).toEqual(['mix test test/spotter_web/live/project_review_live_test.exs', 'git push', 'Phoenix.Component']);

    const rep = await runReplay(t.db, { sessionId, strategy: 'dag' });
    expect(rep.status).toBe('completed');
    const tl = rep.timeline!;
    expect(tl.baselines.source.events).toHaveLength(1);
    expect(tl.baselines.source.events[0].ledger!.retention).toEqual(CC_RETENTION);
    expect(tl.events.length).toBeGreaterThan(0);
    for (const e of tl.events) if (e.summaryIds.length > 0) expect(e.ledger, `firing at call ${e.call}`).toBeTruthy();
  });

  it('`ledger <session> --json` prints the baseline and each variant\'s summaries', async () => {
    let stdout = '';
    const code = await runCli(['ledger', String(sessionId), '--db', t.dbPath, '--json'], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => {} }, env: { PATH: process.env.PATH }, cwd: t.dir });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as LedgerReport;
    expect(report.baselines.map((b) => [b.firstPosition, b.lastPosition, b.ledger!.retention])).toEqual([[0, 206, CC_RETENTION]]);
    expect(report.variants.length).toBeGreaterThanOrEqual(1);
    const dag = report.variants.find((v) => v.summaries.length > 0)!;
    expect(dag.summaries.every((s) => s.ledger !== null)).toBe(true);
    let human = '';
    await runCli(['ledger', String(sessionId), '--db', t.dbPath], { stdout: { write: (s: string) => (human += s) }, stderr: { write: () => {} }, env: { PATH: process.env.PATH }, cwd: t.dir });
    expect(human).toContain("Baseline: the source tool's summary of turns 0-206");
    expect(human).toContain('lost: `mix test test/spotter_web/live/project_review_live_test.exs` (ran 5×, ok after 4 failures)');
  });

  it('a replayed variant\'s retention is the sum of its firings\' ledgers, so window (which writes no summary) has one too', async () => {
    const r = await runReplay(t.db, { sessionId, strategy: 'window' });
    const events = r.timeline!.events;
    // window drops turns at most calls (146 firings on spotter, over MAX_FIRING_LEDGERS): one
    // ledger per stretch of turns (ledgerGroupEnds), on its last firing, keeps the replay linear:
    // calls 49, 100 and 151 (the last).
    expect(events.length).toBeGreaterThan(MAX_FIRING_LEDGERS);
    const firings = events.filter((e) => e.ledger);
    expect(firings.map((e) => e.call)).toEqual([49, 100, events[events.length - 1].call]);
    const row = listVariants(t.db, sessionId).find((v) => v.id === r.variantId)!;
    expect(row.retention).toEqual(sumRetention(firings.map((e) => e.ledger!.retention)));
    expect(Object.values(row.retention!).reduce((n, c) => n + c.total, 0)).toBeGreaterThan(0);
  });

  it('a replay keeps each summary\'s ledger and not its span facts (migration 014): the ledgers are its span — children merged, then its own turns — against its text', async () => {
    const turns = listTurns(t.db, sessionId);
    const positionOf = new Map(turns.map((x) => [x.id, x.position]));
    for (const strategy of ['rolling', 'dag'] as const) {
      const r = await runReplay(t.db, { sessionId, strategy, params: strategy === 'rolling' ? { replayTriggerTokens: 20_000 } : {} });
      const summaries = listReplaySummaries(t.db, r.runId!);
      expect(summaries.length, strategy).toBeGreaterThan(1);
      // Independent of the engine's memory: each span rebuilt from the turns, children first.
      const spans = new Map<number, FactSet>();
      for (const s of [...summaries].sort((a, b) => a.id - b.id)) {
        const parts = s.childIds.map((c) => spans.get(c)!);
        const own = s.turnIds.map((id) => positionOf.get(id)!);
        if (own.length > 0) parts.push(turnRangeFacts(t.db, sessionId, Math.min(...own), Math.max(...own)));
        const span = parts.length === 1 ? parts[0] : mergeFactSets(parts);
        spans.set(s.id, span);
        expect(getSpanFacts(t.db, s.id), `${strategy} summary ${s.id}`).toBeNull();
        expect(s.ledger, `${strategy} summary ${s.id}`).toEqual({ ...summaryLedgerOf(ledgerOf(span, s.text)), text: textRetention(listTurns(t.db, sessionId, { from: s.firstPosition, to: s.lastPosition + 1 }), s.text) });
      }
      if (strategy === 'rolling') expect(summaries.filter((s) => s.childIds.length > 0).length).toBeGreaterThan(0);
    }
  });

  it('deleting the session removes its replays, timelines and ledgers with it (last: it empties the store)', () => {
    const rowsOf = (table: string) => (t.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([rowsOf('replay_timelines') > 0, rowsOf('summary_facts') > 0]).toEqual([true, true]);
    expect(deleteSession(t.db, sessionId)).toBe(true);
    for (const table of ['sessions', 'turns', 'variants', 'runs', 'run_events', 'summaries', 'summary_sources', 'summary_facts', 'replay_timelines']) expect([table, rowsOf(table)]).toEqual([table, 0]);
  });
});