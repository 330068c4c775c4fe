/**
 * The `two-line` pass (shared/strategies/two-line.ts decides). Two steps:
 *
 * - `twoLineDigestStep` (emergency only): the model-free digest of everything but the
 *   kept window, written NOW by the extractive summarizer called directly (no model, no
 *   cache, no tier ladder): one summary of kind 'digest', tier 'digest'.
 * - `twoLineBackgroundStep`: upgrade every digest first (its turns re-summarized in
 *   chunks, the digest marked compacted), then, when at least `minBatch` turns beyond the
 *   kept window are not summarized yet, summarize them in chunks, `concurrency` at once.
 *   Each chunk goes through ctx.summarize (the sha256 summary cache keys it by its text,
 *   so an abandoned or repeated pass costs no second call); a chunk the model cannot
 *   summarize becomes a bounded list of its turns (`boundedTurnList`), never its text.
 *
 * Optimistic commit: chunks are summarized with NO lock held. Then, under the session's
 * write lock (locks.ts) and inside one BEGIN IMMEDIATE transaction, the variant's history
 * (`historyOf`: the ids the model sees after the system prompt, summaries 's<id>' and
 * turns 't<id>') is re-read and must still begin exactly as it did up to the last entry
 * this pass replaces (the digests it upgrades, the turns it summarized). If it moved (a
 * digest or another pass committed meanwhile) the work is abandoned: event
 * `compaction_abandoned`, stats `abandoned: true`, nothing written.
 *
 * `twoLinePass` (what the engine, hence the CLI, runs) does both synchronously: the
 * digest when the pressure is at the emergency line, then the background step to
 * completion. In the app, the service layer runs that same pass as a background task
 * through `TwoLineScheduler` (two-line-scheduler.ts): the digest is committed at the
 * start of the task, before any model call, so the context shrinks at once, and the
 * upgrade continues in the task.
 */
import type { PassContext, PassFn, PassOutcome } from './context.js';
import { chunkTargetTokens, decideTwoLine, digestTargetTokens, liveTwoLineSummaries, type TwoLineParams } from '../strategies/two-line.js';
import { buildSpanIndex, convSpan, convTokensIn, convTurnIds } from '../strategies/spans.js';
import type { ExistingSummary, SummaryTier, VariantState } from '../strategies/types.js';
import type { Turn, TurnMeta } from '../model/turn.js';
import { blocksToText } from '../model/turn.js';
import { extractiveSummary, EXTRACTIVE_MODEL, EXTRACTIVE_PROMPT_VERSION } from '../summarize/extractive.js';
import { turnsToItems } from '../summarize/items.js';
import { countTiers, mapPool } from './common.js';

/** Model name recorded on a chunk that fell back to a list of its turns. */
export const TURN_LIST_MODEL = 'turn-list';
/** Bounds of that list: at most this many lines of at most this many characters. */
export const TURN_LIST_MAX_LINES = 40;
export const TURN_LIST_LINE_CHARS = 80;

const isAbort = (ctx: PassContext, e: unknown) => ctx.signal.aborted || (e instanceof Error && e.name === 'AbortError');

/**
 * The ids the model sees after the system prompt, in order: each live digest/chunk
 * summary as 's<id>' at the place of its first turn, then every conversation turn no
 * live summary covers as 't<id>'.
 */
export function historyOf(metas: readonly TurnMeta[], summaries: readonly ExistingSummary[]): string[] {
  const live = liveTwoLineSummaries(summaries);
  const out: string[] = [];
  let k = 0;
  let coveredTo = -1;
  for (const m of metas) {
    while (k < live.length && live[k].firstPosition <= m.position) {
      out.push(`s${live[k].id}`);
      coveredTo = Math.max(coveredTo, live[k].lastPosition);
      k++;
    }
    if (m.role !== 'system' && m.position > coveredTo) out.push(`t${m.id}`);
  }
  for (; k < live.length; k++) out.push(`s${live[k].id}`);
  return out;
}

/** A chunk the model could not summarize, as a bounded list of its turns (never their text verbatim). */
export function boundedTurnList(turns: readonly Pick<Turn, 'role' | 'blocks' | 'position'>[]): string {
  const lines = [`[Summary unavailable: the summarizer failed on turns ${turns[0]?.position ?? 0}-${turns[turns.length - 1]?.position ?? 0}; their list instead]`];
  for (const t of turns.slice(0, TURN_LIST_MAX_LINES)) {
    const one = blocksToText(t.blocks).replace(/\s+/g, ' ').trim();
    lines.push(`- ${t.role}: ${one.length > TURN_LIST_LINE_CHARS ? `${one.slice(0, TURN_LIST_LINE_CHARS)}…` : one}`);
  }
  if (turns.length > TURN_LIST_MAX_LINES) lines.push(`- … and ${turns.length - TURN_LIST_MAX_LINES} more turns`);
  return lines.join('\n');
}

const currentState = (ctx: PassContext): VariantState => ctx.store.state();
const startsWith = (h: readonly string[], prefix: readonly string[]) => prefix.length <= h.length && prefix.every((x, i) => h[i] === x);


export interface DigestStepResult {
  written: boolean;
  abandoned: boolean;
  summaryId?: number;
  turns: number;
}

/** Emergency: the model-free digest of [coveredUntil, keptStart), committed now. */
export async function twoLineDigestStep(ctx: PassContext, params: TwoLineParams): Promise<DigestStepResult> {
  const summaries = ctx.store.summaries();
  const d = decideTwoLine({ turns: ctx.metas, summaries, state: currentState(ctx), params, overheadTokens: ctx.overheadTokens });
  if (!d.digestRange) return { written: false, abandoned: false, turns: 0 };
  const [from, to] = d.digestRange;
  const before = historyOf(ctx.metas, summaries);
  const turns = ctx.readTurns(from, to).filter((t) => t.role !== 'system');
  const ix = buildSpanIndex(ctx.metas);
  const text = extractiveSummary({ purpose: 'digest', items: turnsToItems(turns), targetTokens: digestTargetTokens(convTokensIn(ix, from, to)), tier: 'normal' });
  const tokenCount = ctx.countTokens(text);
  const span = convSpan(ctx.metas, from, to);
  return ctx.store.commit((w): DigestStepResult => {
        const now = historyOf(ctx.metas, w.summaries());
        if (!startsWith(now, before) || now.length !== before.length) {
          ctx.event('compaction_abandoned', { step: 'digest', reason: 'the history changed before the digest was written' });
          return { written: false, abandoned: true, turns: 0 };
        }
        const id = w.insertSummary({
          kind: 'digest',
          depth: 0,
          text,
          tokenCount,
          tier: 'digest',
          model: EXTRACTIVE_MODEL,
          promptVersion: EXTRACTIVE_PROMPT_VERSION,
          cacheKey: null,
          cacheHit: false,
          firstPosition: span.first,
          lastPosition: span.last,
          turnIds: span.turnIds,
        });
        w.setState({ ...w.state(), coveredUntil: to });
        ctx.event('digest_written', { summaryId: id, turns: span.turnIds.length, tokens: tokenCount, coveredUntil: to, pressure: d.pressure });
        return { written: true, abandoned: false, summaryId: id, turns: span.turnIds.length };
  });
}

interface ChunkJob {
  from: number;
  to: number;
  /** The digest this chunk upgrades, or null for new turns. */
  digestId: number | null;
}

interface ChunkResult extends ChunkJob {
  text: string;
  tokenCount: number;
  tier: SummaryTier;
  model: string;
  cacheKey: string | null;
  cacheHit: boolean;
}

export interface BackgroundStepResult {
  /** Whether there was anything to do. */
  ran: boolean;
  committed: boolean;
  abandoned: boolean;
  digestsUpgraded: number;
  chunksCreated: number;
  turnsCompacted: number;
  fallbackChunks: number;
  tiers: string[];
  reason: string;
}

/** Upgrade digests, then summarize new batches; optimistic commit (see the file header). */
export async function twoLineBackgroundStep(ctx: PassContext, params: TwoLineParams): Promise<BackgroundStepResult> {
  const prepared = await prepareTwoLineBackground(ctx, params);
  return 'commit' in prepared ? prepared.commit(ctx) : prepared;
}

/**
 * The background step's slow part (summarize, no lock held), returning its optimistic
 * commit to run now (the engine) or some model calls later (the live replay: the
 * background pass lands while the conversation goes on). The commit takes the context of
 * the moment it runs: the history may have grown (fine) or moved (abandoned).
 */
export async function prepareTwoLineBackground(ctx: PassContext, params: TwoLineParams): Promise<BackgroundStepResult | { commit(at: PassContext): Promise<BackgroundStepResult> }> {
  const summaries = ctx.store.summaries();
  const d = decideTwoLine({ turns: ctx.metas, summaries, state: currentState(ctx), params, overheadTokens: ctx.overheadTokens });
  const jobs: ChunkJob[] = [];
  for (const u of d.upgrades) for (const [from, to] of u.chunks) jobs.push({ from, to, digestId: u.digest.id });
  for (const [from, to] of d.newChunks) jobs.push({ from, to, digestId: null });
  const empty = { committed: false, abandoned: false, digestsUpgraded: 0, chunksCreated: 0, turnsCompacted: 0, fallbackChunks: 0, tiers: [] as string[] };
  if (jobs.length === 0) return { ...empty, ran: false, reason: `nothing for the background pass: no digest, ${d.pendingTurns} pending turns (minBatch ${params.minBatch})` };

  // The history must still begin like this, up to the last entry this pass replaces.
  const before = historyOf(ctx.metas, summaries);
  let lastReplaced = -1;
  for (const u of d.upgrades) lastReplaced = Math.max(lastReplaced, before.indexOf(`s${u.digest.id}`));
  if (d.newChunks.length > 0) {
    const ids = convTurnIds(ctx.metas, d.newChunks[d.newChunks.length - 1][0], d.newChunks[d.newChunks.length - 1][1]);
    lastReplaced = Math.max(lastReplaced, before.indexOf(`t${ids[ids.length - 1]}`));
  }
  const expected = before.slice(0, lastReplaced + 1);
  ctx.event('background_started', { digests: d.upgrades.length, chunks: jobs.length, pendingTurns: d.pendingTurns });

  const ix = buildSpanIndex(ctx.metas);
  let done = 0;
  let tokensDone = 0;
  ctx.progress(0, jobs.length, 0);
  const results = await mapPool(ctx, jobs, params.concurrency, async (job): Promise<ChunkResult> => {
    const turns = ctx.readTurns(job.from, job.to).filter((t) => t.role !== 'system');
    let r: ChunkResult;
    try {
      const s = await ctx.summarize({ purpose: 'chunk', items: turnsToItems(turns), targetTokens: chunkTargetTokens(convTokensIn(ix, job.from, job.to)) }, { allowFallback: false });
      r = { ...job, text: s.text, tokenCount: s.tokenCount, tier: s.tier, model: s.model, cacheKey: s.cacheKey, cacheHit: s.cacheHit };
    } catch (err) {
      if (isAbort(ctx, err)) throw err;
      const text = boundedTurnList(turns);
      ctx.event('chunk_fallback', { from: job.from, to: job.to, error: err instanceof Error ? err.message : String(err) });
      r = { ...job, text, tokenCount: ctx.countTokens(text), tier: 'fallback', model: TURN_LIST_MODEL, cacheKey: null, cacheHit: false };
    }
    tokensDone += r.tokenCount;
    ctx.progress(++done, jobs.length, tokensDone);
    return r;
  });
  ctx.checkCancelled();

  return { commit: (at: PassContext) => commitTwoLineBackground(at, d, expected, results, empty) };
}

function commitTwoLineBackground(ctx: PassContext, d: ReturnType<typeof decideTwoLine>, expected: string[], results: ChunkResult[], empty: Omit<BackgroundStepResult, 'ran' | 'reason'>): Promise<BackgroundStepResult> {
  return ctx.store.commit((w): BackgroundStepResult => {
        const now = historyOf(ctx.metas, w.summaries());
        if (!startsWith(now, expected)) {
          const at = expected.findIndex((x, i) => now[i] !== x);
          ctx.event('compaction_abandoned', { step: 'background', reason: 'the history moved while the chunks were summarized', expected: expected[at] ?? null, found: now[at] ?? null, chunks: results.length });
          return { ...empty, ran: true, abandoned: true, reason: 'abandoned: the history moved during the summarize step (the cached chunks make the retry cheap)' };
        }
        let turnsCompacted = 0;
        let coveredUntil = w.state().coveredUntil ?? d.prefixEnd;
        for (const r of results) {
          const span = convSpan(ctx.metas, r.from, r.to);
          w.insertSummary({
            kind: 'chunk',
            depth: 0,
            text: r.text,
            tokenCount: r.tokenCount,
            tier: r.tier,
            model: r.model,
            promptVersion: ctx.variant.summarizer.promptVersion,
            cacheKey: r.cacheKey,
            cacheHit: r.cacheHit,
            firstPosition: span.first,
            lastPosition: span.last,
            turnIds: span.turnIds,
          });
          if (r.digestId === null) turnsCompacted += span.turnIds.length;
          coveredUntil = Math.max(coveredUntil, r.to);
        }
        const upgraded = d.upgrades.map((u) => u.digest.id);
        w.markCompacted(upgraded);
        for (const u of d.upgrades) turnsCompacted += convTurnIds(ctx.metas, u.digest.firstPosition, u.digest.lastPosition + 1).length;
        w.setState({ ...w.state(), coveredUntil });
        const fallbackChunks = results.filter((r) => r.tier === 'fallback').length;
        ctx.event('background_completed', { digestsUpgraded: upgraded.length, chunks: results.length, fallbackChunks, cacheHits: results.filter((r) => r.cacheHit).length, coveredUntil });
        return { ran: true, committed: true, abandoned: false, digestsUpgraded: upgraded.length, chunksCreated: results.length, turnsCompacted, fallbackChunks, tiers: results.map((r) => r.tier), reason: `upgraded ${upgraded.length} digest(s), wrote ${results.length} chunk summaries` };
  });
}

/** The engine's pass: the digest when at the emergency line, then the background step to completion. */
export const twoLinePass: PassFn = async (ctx, resolved, opts) => {
  const params = resolved as TwoLineParams;
  const force = opts?.force ?? false;
  const d = decideTwoLine({ turns: ctx.metas, summaries: ctx.store.summaries(), state: ctx.state, params, overheadTokens: ctx.overheadTokens });
  const base = { level: d.level, pressure: d.pressure, warningPct: d.warningPct, emergencyPct: d.emergencyPct, linesFellBack: d.fellBack };
  if (!force && d.level === 'none' && d.upgrades.length === 0) {
    return { status: 'skipped', stats: { ...base, reason: d.reason } };
  }
  ctx.event('compaction_started', { ...base, pendingTurns: d.pendingTurns, digests: d.upgrades.length });
  const digest = d.level === 'emergency' ? await twoLineDigestStep(ctx, params) : { written: false, abandoned: false, turns: 0 };
  ctx.checkCancelled();
  if (ctx.live && !digest.abandoned) {
    // Live: the background pass is summarized now and lands later (one task at a time).
    const prepared = ctx.live.backgroundPending ? null : await prepareTwoLineBackground(ctx, params);
    const deferred =
      prepared && 'commit' in prepared
        ? { commit: async (at: PassContext) => outcomeOf(base, d.reason, digest, await prepared.commit(at), at) }
        : undefined;
    const out = outcomeOf(base, d.reason, digest, prepared && !('commit' in prepared) ? prepared : null, ctx);
    return deferred ? { ...out, deferred } : out;
  }
  const bg = digest.abandoned ? null : await twoLineBackgroundStep(ctx, params);
  return outcomeOf(base, d.reason, digest, bg, ctx);
};

function outcomeOf(base: Record<string, unknown>, reason: string, digest: DigestStepResult, bg: BackgroundStepResult | null, ctx: PassContext): PassOutcome {
  const abandoned = digest.abandoned || (bg?.abandoned ?? false);
  const wrote = digest.written || (bg?.committed ?? false);
  const stats = {
    ...base,
    reason: bg ? `${reason}; ${bg.reason}` : digest.abandoned ? `${reason}; abandoned before the digest` : reason,
    digestWritten: digest.written,
    digestTurns: digest.turns,
    digestsUpgraded: bg?.digestsUpgraded ?? 0,
    chunksCreated: bg?.chunksCreated ?? 0,
    turnsCompacted: bg?.turnsCompacted ?? 0,
    fallbackChunks: bg?.fallbackChunks ?? 0,
    tiersUsed: countTiers(bg?.tiers ?? []),
    abandoned,
  };
  return { status: wrote ? 'completed' : 'skipped', stats, state: currentState(ctx) };
}
