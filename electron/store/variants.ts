/**
 * Data access for variants, runs, run events and summaries. A variant = strategy +
 * parameters + summarizer + prompt version; it owns its summaries over the session's
 * immutable turns, so many variants of one session live side by side.
 */
import { redactHeldSecrets } from '../held-secrets.js';
import { ledgersOf, retentionBySession } from './summary-facts.js';
import { latestProbeScores } from './probe-evaluations.js';
import crypto from 'node:crypto';
import { writeTransaction, type DB } from './db.js';
import type { NewSummary as PassSummary } from '../../shared/passes/context.js';
import { stableJson } from '../../shared/model/turn.js';
import { normalizeOverrides, type PromptOverrides } from '../../shared/summarize/prompts.js';
import type { ExistingSummary, StrategyName, SummaryKind, SummaryTier, VariantState } from '../../shared/strategies/types.js';
import type { RunInfo, RunStatus, SummaryInfo, SummarizerConfig, VariantInfo, VariantListing } from '../../shared/contract.js';

const now = () => new Date().toISOString();

export interface VariantKey {
  sessionId: number;
  strategy: StrategyName;
  params: Record<string, number | string | boolean>;
  /** Summarizer identity (kind, model, baseURL) — never the API key. */
  summarizer: SummarizerConfig;
  promptVersion: string;
  /**
   * Edited prompt templates (normalized, shared/summarize/prompts.ts): stored with the
   * variant, not hashed again — their hash is in `promptVersion`.
   */
  promptOverrides?: PromptOverrides;
}

export function variantKeyHash(k: Omit<VariantKey, 'sessionId' | 'promptOverrides'>): string {
  return crypto.createHash('sha256').update(stableJson({ s: k.strategy, p: k.params, m: k.summarizer, v: k.promptVersion })).digest('hex');
}

interface VariantRow {
  id: number;
  session_id: number;
  strategy: StrategyName;
  params: string;
  summarizer: string;
  prompt_version: string;
  prompt_overrides: string;
  variant_key: string;
  state: string;
  created_at: string;
  name: string | null;
  summaries?: number;
  runs?: number;
}

function variantFromRow(r: VariantRow): VariantInfo {
  return {
    id: r.id,
    sessionId: r.session_id,
    strategy: r.strategy,
    params: JSON.parse(r.params) as VariantInfo['params'],
    summarizer: { ...(JSON.parse(r.summarizer) as SummarizerConfig), ...promptsOf(r), promptVersion: r.prompt_version },
    state: JSON.parse(r.state) as VariantState,
    createdAt: r.created_at,
    name: r.name,
    summaries: r.summaries ?? 0,
    runs: r.runs ?? 0,
  };
}

/** The stored overrides as `{ prompts }`, or nothing for the default templates. */
function promptsOf(r: VariantRow): { prompts?: PromptOverrides } {
  const prompts = normalizeOverrides(JSON.parse(r.prompt_overrides) as Record<string, string>);
  return Object.keys(prompts).length > 0 ? { prompts } : {};
}

const SELECT_VARIANT = `SELECT v.*, (SELECT COUNT(*) FROM summaries s WHERE s.variant_id = v.id) AS summaries, (SELECT COUNT(*) FROM runs r WHERE r.variant_id = v.id) AS runs FROM variants v`;

/**
 * A variant the table shows: it has a run, a summary or a name (saved by the user). Empty
 * unnamed rows (made before migration 6 by moving a slider) own nothing and stay hidden.
 */
const SHOWN = `(v.name IS NOT NULL OR EXISTS (SELECT 1 FROM runs r WHERE r.variant_id = v.id) OR EXISTS (SELECT 1 FROM summaries s WHERE s.variant_id = v.id))`;

/** Finds the variant for this key or creates it empty. */
export function getOrCreateVariant(db: DB, key: VariantKey): VariantInfo {
  const hash = variantKeyHash(key);
  const existing = db.prepare(`${SELECT_VARIANT} WHERE v.session_id = ? AND v.variant_key = ?`).get(key.sessionId, hash) as VariantRow | undefined;
  if (existing) return variantFromRow(existing);
  // One statement: another process creating the same variant between the look-up above and
  // this insert makes it a no-op (then the row it wrote is read), never a UNIQUE failure.
  db.prepare('INSERT INTO variants(session_id, strategy, params, summarizer, prompt_version, prompt_overrides, variant_key, state, created_at) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(session_id, variant_key) DO NOTHING').run(
    key.sessionId,
    key.strategy,
    stableJson(key.params),
    stableJson(key.summarizer),
    key.promptVersion,
    stableJson(normalizeOverrides(key.promptOverrides)),
    hash,
    '{}',
    now(),
  );
  return variantFromRow(db.prepare(`${SELECT_VARIANT} WHERE v.session_id = ? AND v.variant_key = ?`).get(key.sessionId, hash) as VariantRow);
}

export function getVariant(db: DB, id: number): VariantInfo | null {
  const r = db.prepare(`${SELECT_VARIANT} WHERE v.id = ?`).get(id) as VariantRow | undefined;
  return r ? variantFromRow(r) : null;
}

interface VariantListingRow extends VariantRow {
  replay_run_id: number | null;
  replay_stats: string | null;
  last_run_at: string | null;
  last_run_kind: 'pass' | 'replay' | null;
  last_run_status: RunStatus | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The session's variants the table shows (see SHOWN), each with its run figures, in ONE
 * statement (correlated subqueries on the runs_variant / summaries_variant indexes, no
 * query per variant), plus one for every variant's retention (`retentionBySession`): a
 * table of 200 variants is two round trips. Firings, tokens sent,
 * summarizer calls and cost come from the variant's latest completed replay run's stats
 * (the timeline totals electron/engine/replay.ts stores with the run); null without one.
 */
export function listVariants(db: DB, sessionId: number): VariantListing[] {
  const rows = db
    .prepare(
      `SELECT v.*,
        (SELECT COUNT(*) FROM summaries s WHERE s.variant_id = v.id) AS summaries,
        (SELECT COUNT(*) FROM runs r WHERE r.variant_id = v.id) AS runs,
        lr.id AS replay_run_id, lr.stats AS replay_stats,
        last.at AS last_run_at, last.kind AS last_run_kind, last.status AS last_run_status
       FROM variants v
       LEFT JOIN runs lr ON lr.id = (SELECT MAX(r.id) FROM runs r WHERE r.variant_id = v.id AND r.kind = 'replay' AND r.status = 'completed')
       LEFT JOIN (SELECT r.variant_id, COALESCE(r.ended_at, r.started_at) AS at, r.kind, r.status FROM runs r
                  WHERE r.id = (SELECT MAX(r2.id) FROM runs r2 WHERE r2.variant_id = r.variant_id)) last ON last.variant_id = v.id
       WHERE v.session_id = ? AND ${SHOWN}
       ORDER BY v.id`,
    )
    .all(sessionId) as VariantListingRow[];
  const retention = retentionBySession(db, sessionId);
  const probes = latestProbeScores(db, sessionId);
  return rows.map((r) => {
    const stats = r.replay_stats ? (JSON.parse(r.replay_stats) as Record<string, unknown>) : null;
    return {
      ...variantFromRow(r),
      latestReplayRunId: r.replay_run_id,
      retention: retention.get(r.id)?.retention ?? null,
      textRetention: retention.get(r.id)?.text ?? null,
      probes: probes.get(r.id) ?? null,
      firings: stats ? num(stats.firings) : null,
      tokensSent: stats ? num(stats.inputTokens) : null,
      summarizerCalls: stats ? num(stats.summarizerCalls) : null,
      costUsd: stats ? num(stats.costUsd) : null,
      lastRun: r.last_run_at && r.last_run_kind && r.last_run_status ? { at: r.last_run_at, kind: r.last_run_kind, status: r.last_run_status } : null,
    };
  });
}

/** Sets (or with null clears) the user's name of a variant; false when there is no such variant. */
export function renameVariant(db: DB, variantId: number, name: string | null): boolean {
  return db.prepare('UPDATE variants SET name = ? WHERE id = ?').run(name, variantId).changes > 0;
}

/** Whether the variant has a run still running (it cannot be deleted then). */
export function variantHasRunningRun(db: DB, variantId: number): boolean {
  return db.prepare("SELECT 1 FROM runs WHERE variant_id = ? AND status = 'running' LIMIT 1").get(variantId) !== undefined;
}

/**
 * Deletes a variant the user no longer wants, with everything it owns: its summaries
 * (pass and replay) and their edges, its runs with their events and timelines. Passes
 * never delete a summary (they mark it compacted); only this explicit user action does,
 * and only the variant's own rows: turns, model calls and other variants are untouched
 * (summary edges point from this variant's summaries to turns, never the other way).
 * One IMMEDIATE transaction. Returns false when there is no such variant.
 */
export function deleteVariant(db: DB, variantId: number): boolean {
  return writeTransaction(db, () => {
    if (!db.prepare('SELECT 1 FROM variants WHERE id = ?').get(variantId)) return false;
    deleteVariantRows(db, variantId);
    return true;
  });
}

/**
 * Everything a variant owns, and the variant (deleteVariant). Deleting a whole session goes
 * by batches over the same tables (STEPS in electron/store/session-deletion.ts): a table
 * that hangs below a variant is added to both. Children before parents: the sweep points naming it, summary edges and ledgers,
 * summaries, run events and timelines, runs. Call inside a write transaction.
 */
export function deleteVariantRows(db: DB, variantId: number): void {
  const ofSummaries = 'SELECT id FROM summaries WHERE variant_id = ?';
  const ofRuns = 'SELECT id FROM runs WHERE variant_id = ?';
  db.prepare('DELETE FROM sweep_points WHERE variant_id = ?').run(variantId);
  db.prepare('DELETE FROM probe_evaluations WHERE variant_id = ?').run(variantId);
  db.prepare(`DELETE FROM summary_sources WHERE summary_id IN (${ofSummaries})`).run(variantId);
  db.prepare(`DELETE FROM summary_facts WHERE summary_id IN (${ofSummaries})`).run(variantId);
  db.prepare('DELETE FROM summaries WHERE variant_id = ?').run(variantId);
  db.prepare(`DELETE FROM run_events WHERE run_id IN (${ofRuns})`).run(variantId);
  db.prepare(`DELETE FROM replay_timelines WHERE run_id IN (${ofRuns})`).run(variantId);
  db.prepare('DELETE FROM runs WHERE variant_id = ?').run(variantId);
  db.prepare('DELETE FROM variants WHERE id = ?').run(variantId);
}

export function setVariantState(db: DB, variantId: number, state: VariantState): void {
  db.prepare('UPDATE variants SET state = ? WHERE id = ?').run(stableJson(state), variantId);
}

// ---- runs ----

export function startRun(db: DB, variantId: number, params: Record<string, unknown>, kind: 'pass' | 'replay' = 'pass'): number {
  return Number(db.prepare("INSERT INTO runs(variant_id, started_at, status, params, kind) VALUES (?, ?, 'running', ?, ?)").run(variantId, now(), stableJson(params), kind).lastInsertRowid);
}

export function finishRun(db: DB, runId: number, status: Exclude<RunStatus, 'running'>, stats: Record<string, unknown>, error: string | null = null): void {
  // Endpoint texts may echo a key: no held secret value is stored (shared/redact.ts).
  db.prepare('UPDATE runs SET status = ?, ended_at = ?, stats = ?, error = ? WHERE id = ?').run(status, now(), redactHeldSecrets(stableJson(stats)), error === null ? null : redactHeldSecrets(error), runId);
}

export function addRunEvent(db: DB, runId: number, kind: string, data: Record<string, unknown> = {}): void {
  db.prepare('INSERT INTO run_events(run_id, at, kind, data) VALUES (?, ?, ?, ?)').run(runId, now(), kind, redactHeldSecrets(stableJson(data)));
}

/**
 * Many events of one kind at once (a replay's firings: ~50,000 for a window over 100,000
 * turns): one statement, one timestamp, and plain JSON.stringify — the callers build each
 * object with its keys in a fixed order, so the text is as deterministic as stableJson's.
 */
export function addRunEvents(db: DB, runId: number, kind: string, data: Iterable<Record<string, unknown>>): void {
  const stmt = db.prepare('INSERT INTO run_events(run_id, at, kind, data) VALUES (?, ?, ?, ?)');
  const at = now();
  for (const d of data) stmt.run(runId, at, kind, redactHeldSecrets(JSON.stringify(d)));
}

export function listRuns(db: DB, variantId: number): RunInfo[] {
  const runs = db.prepare('SELECT * FROM runs WHERE variant_id = ? ORDER BY id').all(variantId) as Array<{ id: number; variant_id: number; status: RunStatus; started_at: string; ended_at: string | null; params: string; stats: string; error: string | null; kind: 'pass' | 'replay' }>;
  const evStmt = db.prepare('SELECT at, kind, data FROM run_events WHERE run_id = ? ORDER BY id');
  return runs.map((r) => ({
    id: r.id,
    variantId: r.variant_id,
    kind: r.kind,
    status: r.status,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    params: JSON.parse(r.params) as Record<string, unknown>,
    stats: JSON.parse(r.stats) as Record<string, unknown>,
    error: r.error,
    events: (evStmt.all(r.id) as Array<{ at: string; kind: string; data: string }>).map((e) => ({ at: e.at, kind: e.kind, data: JSON.parse(e.data) as Record<string, unknown> })),
  }));
}

/** The run's status, or null when there is no such run. */
export function getRunStatus(db: DB, runId: number): RunStatus | null {
  const row = db.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as { status: RunStatus } | undefined;
  return row?.status ?? null;
}

// ---- summaries ----

/**
 * A summary row to insert: what a pass writes (shared/passes/context.ts), with its variant
 * and run; a replay's rows also name the replay run, the call they were made at and the
 * call they were folded at (migration 004).
 */
export type NewSummary = PassSummary & {
  variantId: number;
  runId: number | null;
  replay?: { runId: number; callIndex: number; compactedAtCall: number | null };
  /** Default: now. */
  createdAt?: string;
};

/** Inserts a summary and its edges. Call inside the pass's commit transaction. */
export function insertSummary(db: DB, s: NewSummary): number {
  const id = Number(
    db
      .prepare(
        'INSERT INTO summaries(variant_id, run_id, kind, depth, text, token_count, tier, model, prompt_version, cache_key, cache_hit, compacted, first_position, last_position, created_at, replay_run_id, call_index, compacted_at_call) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
      )
      .run(
        s.variantId,
        s.runId,
        s.kind,
        s.depth,
        redactHeldSecrets(s.text),
        s.tokenCount,
        s.tier,
        s.model,
        s.promptVersion,
        s.cacheKey,
        s.cacheHit ? 1 : 0,
        // A pass's rows start live (a later pass folds them); a replay's are written once, as they ended.
        s.replay?.compactedAtCall != null ? 1 : 0,
        s.firstPosition,
        s.lastPosition,
        s.createdAt ?? now(),
        s.replay?.runId ?? null,
        s.replay?.callIndex ?? null,
        s.replay?.compactedAtCall ?? null,
      ).lastInsertRowid,
  );
  const edge = db.prepare('INSERT INTO summary_sources(summary_id, ord, turn_id, child_summary_id) VALUES (?,?,?,?)');
  let ord = 0;
  for (const t of s.turnIds ?? []) edge.run(id, ord++, t, null);
  for (const c of s.childSummaryIds ?? []) edge.run(id, ord++, null, c);
  return id;
}

/** Marks summaries folded into a parent or superseded; they are never deleted. */
export function markCompacted(db: DB, summaryIds: readonly number[]): void {
  const stmt = db.prepare('UPDATE summaries SET compacted = 1 WHERE id = ?');
  for (const id of summaryIds) stmt.run(id);
}

interface SummaryRow {
  id: number;
  variant_id: number;
  run_id: number | null;
  kind: SummaryKind;
  depth: number;
  text: string;
  token_count: number;
  tier: SummaryTier;
  model: string;
  prompt_version: string;
  cache_key: string | null;
  cache_hit: number;
  compacted: number;
  first_position: number;
  last_position: number;
  created_at: string;
}

/** The variant's own summaries (a replay's are separate: listReplaySummaries). */
export function listSummaries(db: DB, variantId: number): SummaryInfo[] {
  return summariesWhere(db, 's.variant_id = ? AND s.replay_run_id IS NULL', variantId);
}

/** The summaries one replay run made, with the call each was made at (`callIndex`) and folded at (`compactedAtCall`). */
export function listReplaySummaries(db: DB, runId: number): Array<SummaryInfo & { callIndex: number; compactedAtCall: number | null }> {
  return summariesWhere(db, 's.replay_run_id = ?', runId) as Array<SummaryInfo & { callIndex: number; compactedAtCall: number | null }>;
}

function summariesWhere(db: DB, where: string, arg: number): SummaryInfo[] {
  const rows = db.prepare(`SELECT * FROM summaries s WHERE ${where} ORDER BY first_position, depth, id`).all(arg) as Array<SummaryRow & { call_index: number | null; compacted_at_call: number | null }>;
  const edges = db
    .prepare(`SELECT ss.summary_id, ss.turn_id, ss.child_summary_id FROM summary_sources ss JOIN summaries s ON s.id = ss.summary_id WHERE ${where} ORDER BY ss.summary_id, ss.ord`)
    .all(arg) as Array<{ summary_id: number; turn_id: number | null; child_summary_id: number | null }>;
  const turnIds = new Map<number, number[]>();
  const childIds = new Map<number, number[]>();
  for (const e of edges) {
    if (e.turn_id !== null) (turnIds.get(e.summary_id) ?? turnIds.set(e.summary_id, []).get(e.summary_id)!).push(e.turn_id);
    if (e.child_summary_id !== null) (childIds.get(e.summary_id) ?? childIds.set(e.summary_id, []).get(e.summary_id)!).push(e.child_summary_id);
  }
  const ledgers = ledgersOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    variantId: r.variant_id,
    runId: r.run_id,
    kind: r.kind,
    depth: r.depth,
    text: r.text,
    tokenCount: r.token_count,
    charCount: r.text.length,
    tier: r.tier,
    model: r.model,
    promptVersion: r.prompt_version,
    cacheHit: r.cache_hit === 1,
    compacted: r.compacted === 1,
    firstPosition: r.first_position,
    lastPosition: r.last_position,
    childIds: childIds.get(r.id) ?? [],
    turnIds: turnIds.get(r.id) ?? [],
    createdAt: r.created_at,
    ledger: ledgers.get(r.id) ?? null,
    ...(r.call_index !== null ? { callIndex: r.call_index, compactedAtCall: r.compacted_at_call } : {}),
  }));
}

/** The planners' view of a variant's summaries. */
export function listExistingSummaries(db: DB, variantId: number): ExistingSummary[] {
  return listSummaries(db, variantId).map(({ id, kind, depth, tokenCount, charCount, compacted, firstPosition, lastPosition, childIds }) => ({
    id,
    kind,
    depth,
    tokenCount,
    charCount,
    compacted,
    firstPosition,
    lastPosition,
    childIds,
  }));
}

/** One summary's text, checked to belong to the variant. */
export function getSummaryText(db: DB, variantId: number, summaryId: number): string {
  const row = db.prepare('SELECT text FROM summaries WHERE id = ? AND variant_id = ?').get(summaryId, variantId) as { text: string } | undefined;
  if (!row) throw new Error(`summary ${summaryId} not found in variant ${variantId}`);
  return row.text;
}

/** The variant with this key hash in the session, if it exists. */
export function findVariantByKey(db: DB, sessionId: number, variantKey: string): VariantInfo | null {
  const row = db.prepare('SELECT id FROM variants WHERE session_id = ? AND variant_key = ?').get(sessionId, variantKey) as { id: number } | undefined;
  return row ? getVariant(db, row.id) : null;
}
