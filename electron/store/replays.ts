/**
 * Replay runs' rows (migration 004): the summaries a replay made, written in one
 * transaction when it completes, and its timeline document.
 */
import type { DB } from './db.js';
import { insertSummary } from './variants.js';
import type { ReplayTimeline, SummaryInfo } from '../../shared/contract.js';
import type { MemorySummary } from '../../shared/replay/memory-store.js';
import type { VariantState } from '../../shared/strategies/types.js';

/** A replay's summary as listReplaySummaries reads it back (electron/store/variants.ts). */
export type ReplaySummaryRow = SummaryInfo & { callIndex: number; compactedAtCall: number | null };

/**
 * Inserts a replay's summaries (ids remapped from the in-memory store's) with their
 * edges, the call each was made at and the call each was folded at. Returns memory id ->
 * stored id, and the rows as listReplaySummaries would read them back, by stored id, before
 * any ledger is recorded (`ledger` null): the replay that wrote them reads them from here
 * instead of reading a rolling replay's ~100,000 edges back.
 */
export function insertReplaySummaries(db: DB, o: { variantId: number; runId: number; summaries: readonly MemorySummary[]; compactedAtCall: ReadonlyMap<number, number> }): { ids: Map<number, number>; rows: Map<number, ReplaySummaryRow> } {
  const ids = new Map<number, number>();
  const rows = new Map<number, ReplaySummaryRow>();
  const createdAt = new Date().toISOString();
  // Memory ids grow with creation, so children are always inserted before their parents.
  for (const s of [...o.summaries].sort((a, b) => a.id - b.id)) {
    const { id: memoryId, callIndex, compacted: _compacted, childIds, ...row } = s;
    const compactedAtCall = o.compactedAtCall.get(memoryId) ?? null;
    const childSummaryIds = childIds.map((c) => ids.get(c)!);
    const id = insertSummary(db, { ...row, variantId: o.variantId, runId: o.runId, childSummaryIds, createdAt, replay: { runId: o.runId, callIndex, compactedAtCall } });
    ids.set(memoryId, id);
    rows.set(id, {
      id,
      variantId: o.variantId,
      runId: o.runId,
      kind: row.kind,
      depth: row.depth,
      text: row.text,
      tokenCount: row.tokenCount,
      charCount: row.text.length,
      tier: row.tier,
      model: row.model,
      promptVersion: row.promptVersion,
      cacheHit: row.cacheHit,
      // As stored: a replay's rows are written once, as they ended.
      compacted: compactedAtCall !== null,
      firstPosition: row.firstPosition,
      lastPosition: row.lastPosition,
      childIds: childSummaryIds,
      turnIds: [...(row.turnIds ?? [])],
      createdAt,
      ledger: null,
      callIndex,
      compactedAtCall,
    });
  }
  return { ids, rows };
}

export function saveReplayTimeline(db: DB, runId: number, timeline: ReplayTimeline): void {
  db.prepare('INSERT OR REPLACE INTO replay_timelines(run_id, timeline) VALUES (?, ?)').run(runId, JSON.stringify(timeline));
}

export function getReplayTimeline(db: DB, runId: number): ReplayTimeline | null {
  const row = db.prepare('SELECT timeline FROM replay_timelines WHERE run_id = ?').get(runId) as { timeline: string } | undefined;
  return row ? (JSON.parse(row.timeline) as ReplayTimeline) : null;
}

export function getRunRow(db: DB, runId: number): { id: number; variantId: number; kind: 'pass' | 'replay'; status: string } | null {
  const r = db.prepare('SELECT id, variant_id, kind, status FROM runs WHERE id = ?').get(runId) as { id: number; variant_id: number; kind: 'pass' | 'replay'; status: string } | undefined;
  return r ? { id: r.id, variantId: r.variant_id, kind: r.kind, status: r.status } : null;
}

/** The strategy state a replay had at a call: the state after the last firing at or before it ({} before any). */
export function replayStateAt(db: DB, runId: number, call: number): VariantState {
  const rows = db.prepare("SELECT data FROM run_events WHERE run_id = ? AND kind = 'firing' ORDER BY id").all(runId) as Array<{ data: string }>;
  let state: VariantState = {};
  for (const r of rows) {
    const d = JSON.parse(r.data) as { call: number; state?: VariantState };
    if (d.call <= call && d.state) state = d.state;
  }
  return state;
}

/** The newest completed replay run of a variant, if any. */
export function latestReplayRun(db: DB, variantId: number): number | null {
  const r = db.prepare("SELECT id FROM runs WHERE variant_id = ? AND kind = 'replay' AND status = 'completed' ORDER BY id DESC LIMIT 1").get(variantId) as { id: number } | undefined;
  return r ? r.id : null;
}
