/**
 * Variants the user owns, through the StudioService on the real spotter
 * session (306 turns, 140,001 o200k tokens) in a temporary SQLite file: looking up the
 * variant of a slider state never creates one; Compact, Replay and Save do; the variant
 * table's figures come from the runs in one statement; rename, delete (its runs and
 * summaries, never a turn) and the filter that hides empty variants.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Envelope, RunInfo, StudioEvent, VariantInfo, VariantListing } from '../../shared/contract.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { createStudioService, type StudioService } from '../../electron/services/studio-service.js';
import { listVariants } from '../../electron/store/variants.js';
import { FIXTURES, turnsDump } from '../helpers/fixture-sessions.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const SPOTTER = path.join(FIXTURES, 'claude-code', 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl');
/** The engine test's choice: 18 leaves + 1 condensed summary on this session (test/node/engine.test.ts). */
const PARAMS = { tokenBudget: 40000, leafChunkTokens: 8000 };

let tmp: TempDir;
let service: StudioService;
let sessionId: number;
const events: StudioEvent[] = [];

function value<T>(envelope: Envelope<unknown>): T {
  if (!envelope.ok) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.value as T;
}
const call = async <T>(op: string, input: unknown): Promise<T> => value<T>(await service.dispatch(op, input));
const count = (table: string) => service.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

function finished(runId: number): Promise<Extract<StudioEvent, { type: 'run-finished' }>> {
  const match = (e: StudioEvent): e is Extract<StudioEvent, { type: 'run-finished' }> => e.type === 'run-finished' && e.runId === runId;
  const seen = events.find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const off = service.onEvent((e) => {
      if (match(e)) {
        off();
        resolve(e);
      }
    });
  });
}

beforeAll(async () => {
  tmp = tempDir('studio-variants-');
  service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(tmp.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
  service.onEvent((e) => events.push(e));
  const report = await call<{ sessions: Array<{ id: number; turns: number }> }>('importPaths', { paths: [SPOTTER] });
  sessionId = report.sessions[0].id;
  expect(report.sessions[0].turns).toBe(306);
});

afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

describe('variants the user owns', () => {
  let compacted: number;
  let replayed: number;

  it('moving sliders creates no variant: every lookup of a slider state and its draft context writes nothing', async () => {
    // What the window asks while sliders move: findVariant per settled state, replayDraft for the Context view.
    for (const tokenBudget of [20000, 40000, 60000, 80000]) {
      for (const leafChunkTokens of [4000, 8000, 12000]) {
        expect(await call('findVariant', { sessionId, strategy: 'dag', params: { tokenBudget, leafChunkTokens } })).toBeNull();
      }
    }
    expect(await call('findVariant', { sessionId, strategy: 'masking', params: {} })).toBeNull();
    const draft = await call<{ variantId: null; totalTokens: number }>('replayDraft', { sessionId, strategy: 'dag', params: PARAMS });
    // The draft's context is the whole session, normalized: 139,992 tokens (engine.test.ts: 9 whitespace-only blocks dropped).
    expect(draft).toMatchObject({ variantId: null, totalTokens: 139992 });
    expect(await call('listVariants', { sessionId })).toEqual([]);
    expect(count('variants')).toBe(0);
  });

  it('Compact creates one variant, listed with its run', async () => {
    const { runId, variantId } = await call<{ runId: number; variantId: number }>('startCompaction', { sessionId, strategy: 'dag', params: PARAMS, force: true });
    expect((await finished(runId)).status).toBe('completed');
    compacted = variantId;
    const list = await call<VariantListing[]>('listVariants', { sessionId });
    expect(list).toHaveLength(1);
    // 18 leaves + 1 condensed; no replay yet, so the replay columns are empty.
    expect(list[0]).toMatchObject({ id: variantId, name: null, strategy: 'dag', runs: 1, summaries: 19, firings: null, tokensSent: null, summarizerCalls: null, costUsd: null, latestReplayRunId: null, lastRun: { kind: 'pass', status: 'completed' } });
    expect((await call<VariantInfo>('findVariant', { sessionId, strategy: 'dag', params: PARAMS }))?.id).toBe(variantId);
  });

  it('Replay creates its variant; the table takes firings, tokens sent, summarizer calls and cost from the latest replay', async () => {
    const { runId, variantId } = await call<{ runId: number; variantId: number }>('startReplay', { sessionId, strategy: 'masking', params: {} });
    expect((await finished(runId)).status).toBe('completed');
    replayed = variantId;
    const timeline = await call<{ totals: { firings: number; inputTokens: number; costUsd: number } }>('getReplayRun', { runId });
    const [run] = await call<RunInfo[]>('listRuns', { variantId });
    const row = (await call<VariantListing[]>('listVariants', { sessionId })).find((v) => v.id === variantId)!;
    expect(row).toMatchObject({
      runs: 1,
      latestReplayRunId: runId,
      firings: timeline.totals.firings,
      tokensSent: timeline.totals.inputTokens,
      costUsd: timeline.totals.costUsd,
      summarizerCalls: run.stats.summarizerCalls,
      lastRun: { kind: 'replay', status: 'completed' },
    });
    // masking needs no summarizer; the session's 152 calls all send a prompt.
    expect(row.summarizerCalls).toBe(0);
    expect(row.tokensSent).toBeGreaterThan(0);
    expect((await call<VariantListing[]>('listVariants', { sessionId })).map((v) => v.id)).toEqual([compacted, replayed]);
  });

  it('lists in one SQL statement whatever the number of variants', () => {
    let prepared = 0;
    const db = service.db;
    const original = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared++;
      return original(sql);
    }) as typeof db.prepare;
    try {
      expect(listVariants(db, sessionId)).toHaveLength(2);
    } finally {
      db.prepare = original;
    }
    // One for the rows and their run figures, four for every variant's retention (which run
    // counts, its firings' ledgers, the ledger events of passes without summaries, its live
    // pass summaries' ledgers), one for every variant's newest probe evaluation: never one per variant.
    expect(prepared).toBe(6);
  });

  it('Save makes a named variant without a run; rename sets and clears names', async () => {
    const saved = await call<VariantInfo>('saveVariant', { sessionId, strategy: 'window', params: {} });
    expect(saved).toMatchObject({ strategy: 'window', name: `window #${saved.id}`, runs: 0, summaries: 0 });
    const named = await call<VariantInfo>('saveVariant', { sessionId, strategy: 'dag', params: { tokenBudget: 20000 }, name: '  tight budget ' });
    expect(named.name).toBe('tight budget');
    expect((await call<VariantListing[]>('listVariants', { sessionId })).map((v) => v.name)).toEqual([null, null, `window #${saved.id}`, 'tight budget']);
    // Saving the same parameters again finds the same variant (identity is the parameters).
    expect((await call<VariantInfo>('saveVariant', { sessionId, strategy: 'dag', params: { tokenBudget: 20000 } })).id).toBe(named.id);

    expect((await call<VariantInfo>('renameVariant', { variantId: compacted, name: 'baseline dag' })).name).toBe('baseline dag');
    // A blank name clears it on a variant that has runs; a saved variant without runs keeps its name.
    expect((await call<VariantInfo>('renameVariant', { variantId: compacted, name: '   ' })).name).toBeNull();
    const refused = await service.dispatch('renameVariant', { variantId: saved.id, name: '' });
    expect(refused.ok ? null : refused.error.code).toBe('invalid_input');
    const missing = await service.dispatch('renameVariant', { variantId: 999999, name: 'x' });
    expect(missing.ok ? null : missing.error.code).toBe('not_found');
  });

  it('hides empty unnamed variants (what slider moves made before migration 6)', async () => {
    service.db.prepare("INSERT INTO variants(session_id, strategy, params, summarizer, prompt_version, variant_key, state, created_at) VALUES (?, 'dag', '{}', '{}', 'v', 'old-slider-key', '{}', 'now')").run(sessionId);
    const ids = (await call<VariantListing[]>('listVariants', { sessionId })).map((v) => v.id);
    expect(ids).toHaveLength(4);
    expect(count('variants')).toBe(5);
  });

  it('delete removes the variant with its runs and summaries, never a turn nor another variant', async () => {
    const turnsBefore = turnsDump(service.db);
    const otherSummaries = service.db.prepare('SELECT COUNT(*) FROM summaries WHERE variant_id <> ?').pluck().get(compacted);
    expect(await call('deleteVariant', { variantId: compacted })).toEqual({ deleted: true });
    expect(service.db.prepare('SELECT COUNT(*) FROM summaries WHERE variant_id = ?').pluck().get(compacted)).toBe(0);
    expect(service.db.prepare('SELECT COUNT(*) FROM runs WHERE variant_id = ?').pluck().get(compacted)).toBe(0);
    expect(service.db.prepare('SELECT COUNT(*) FROM summaries').pluck().get()).toBe(otherSummaries);
    expect(turnsDump(service.db)).toBe(turnsBefore);
    expect((await call<VariantListing[]>('listVariants', { sessionId })).map((v) => v.id)).not.toContain(compacted);
    // The replayed variant keeps its run and timeline.
    expect(await call<RunInfo[]>('listRuns', { variantId: replayed })).toHaveLength(1);
    expect(await call('deleteVariant', { variantId: compacted })).toEqual({ deleted: false });
  });

  it('refuses to delete a variant while one of its runs is running', async () => {
    service.db.prepare("INSERT INTO runs(variant_id, started_at, status, params) VALUES (?, 'now', 'running', '{}')").run(replayed);
    const busy = await service.dispatch('deleteVariant', { variantId: replayed });
    expect(busy.ok ? null : busy.error.code).toBe('busy');
    service.db.prepare("UPDATE runs SET status = 'failed' WHERE variant_id = ? AND status = 'running'").run(replayed);
    expect(await call('deleteVariant', { variantId: replayed })).toEqual({ deleted: true });
  });
});
