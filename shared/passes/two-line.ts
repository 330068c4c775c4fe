/**
 * The `two-line` pass (shared/strategies/two-line.ts decides). One summary row per pass:
 *
 * - `twoLineDigestStep` (emergency, agent profile): the model-free digest of the previous
 *   live summary plus the new turns up to the kept window, written NOW by the extractive
 *   summarizer called directly (no model, no cache, no tier ladder): one row of kind
 *   'digest', tier 'digest', superseding the previous live row (marked compacted).
 * - `twoLineBackgroundStep`: the model summary. The new turns since the last model
 *   summary (the "base") up to the kept window are summarized in chunks, `concurrency`
 *   at once, through ctx.summarize (the sha256 summary cache keys each chunk by its text,
 *   so an abandoned or repeated pass costs no second call); when there is a base or more
 *   than one chunk, one more call folds the chunk summaries into one text with the base
 *   as prior. When a digest stands, that call is the digest upgrade (template 'digest'):
 *   the digest as the text to rewrite, the base and the chunk summaries after it. The
 *   result is ONE row of kind 'chunk' that supersedes the live digest (the
 *   upgrade "in place" is a new row: summaries are never updated, see ARCHITECTURE.md)
 *   and the base. A chunk the model cannot summarize becomes a bounded list of its turns
 *   (`boundedTurnList`), never its text.
 *
 * Optimistic commit: the background step summarizes without holding the session's write
 * lock; at the end, inside one short transaction (ctx.store.commit), the variant's history
 * (`historyOf`: the ids the model sees after the system prompt, summaries 's<id>' and
 * turns 't<id>') is re-read and must still begin exactly as it did up to the last entry
 * this pass replaces (the live rows it supersedes, the turns it summarized). If it moved
 * (a digest or another pass committed meanwhile) the work is abandoned: event
 * `compaction_abandoned`, stats `abandoned: true`, nothing written.
 *
 * `twoLinePass` (what the engine, hence the CLI, runs) does both synchronously: the
 * digest when the pressure is at the emergency line, then the background step to
 * completion. In the app, the service layer runs that same pass as a background task
 * through `TwoLineScheduler` (two-line-scheduler.ts): the digest is committed at the
 * start of the task, before any model call, so the context shrinks at once, and the
 * upgrade continues in the task.
 */
import { withLazy } from '../lazy.js';
import type { NewSummary, PassContext, PassFn, PassOutcome } from './context.js';
import { chunkTargetTokens, decideTwoLine, digestTargetTokens, liveTwoLineSummaries, passSummaryTargetTokens, ORDINARY_PROFILE, type TwoLineDecision, type TwoLineParams } from '../strategies/two-line.js';
import { buildSpanIndex, chunkRange, convCountIn, convSpan, convTokensIn, type SpanIndex } from '../strategies/spans.js';
import type { SummarizeItem } from '../strategies/summarizer.js';
import type { ExistingSummary, SummaryTier, VariantState } from '../strategies/types.js';
import type { FactSet } from '../facts/index.js';
import type { Turn, TurnMeta } from '../model/turn.js';
import { blocksToText } from '../model/turn.js';
import { extractiveSummarize, EXTRACTIVE_MODEL, EXTRACTIVE_PROMPT_VERSION } from '../summarize/extractive.js';
import { summaryToItem, turnsToItems } from '../model/items.js';
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
export function historyOf(metas: readonly TurnMeta[], summaries: readonly ExistingSummary[], until = Infinity): string[] {
  const out: string[] = [];
  walkHistory(metas, summaries, until, (code) => {
    out.push(codeText(code));
    return true;
  });
  return out;
}

/*
 * The background pass's optimistic check walks the same history with each entry as a
 * number: turn id t -> 2t, summary id s -> 2s + 1 (ids are whole numbers >= 0, so equal
 * codes are equal entries). A firing on a 100,000-turn session checks ~2,000 entries
 * twice: numbers in one array of the exact size, and a comparison that lists nothing.
 */
const turnCode = (id: number) => id * 2;
const summaryCode = (id: number) => id * 2 + 1;
const codeText = (code: number) => (code % 2 === 1 ? `s${(code - 1) / 2}` : `t${code / 2}`);

/** historyOf's entries as codes, in order, to `visit` until it returns false. */
function walkHistory(metas: readonly TurnMeta[], summaries: readonly ExistingSummary[], until: number, visit: (code: number) => boolean): void {
  const end = Math.min(metas.length, until);
  walkHistoryTo(metas, liveTwoLineSummaries(summaries), end, end === metas.length, visit);
}

/** The walk itself, over the live rows `live` (oldest first) and the turns before `end`; `atEnd`: `end` is the last turn's end (the rows after it follow). */
function walkHistoryTo(metas: readonly TurnMeta[], live: readonly ExistingSummary[], end: number, atEnd: boolean, visit: (code: number) => boolean): void {
  let k = 0;
  let coveredTo = -1;
  for (let p = 0; p < end; ) {
    while (k < live.length && live[k].firstPosition <= p) {
      if (!visit(summaryCode(live[k].id))) return;
      coveredTo = Math.max(coveredTo, live[k].lastPosition);
      k++;
    }
    if (p <= coveredTo) {
      // Covered turns list nothing: jump to the end of the coverage or the next summary's start.
      p = Math.min(coveredTo + 1, k < live.length ? live[k].firstPosition : Infinity, end);
      continue;
    }
    const m = metas[p];
    if (m.role !== 'system' && !visit(turnCode(m.id))) return;
    p++;
  }
  if (atEnd) for (; k < live.length; k++) if (!visit(summaryCode(live[k].id))) return;
}

/**
 * What the background commit expects: the history before `until` as the prepare step saw it,
 * up to the last entry the pass replaces (`replaced`, as codes). Kept as its inputs (the turn
 * array, whose turns before `end` never change, and the live rows), listed only if the commit
 * finds the history may have moved.
 */
interface ExpectedHistory {
  metas: readonly TurnMeta[];
  ix: SpanIndex;
  live: readonly ExistingSummary[];
  until: number;
  end: number;
  atEnd: boolean;
  replaced: number[];
}

/** The expected entries as codes: the prepare-time history's head, through its last replaced entry. */
function expectedCodes(e: ExpectedHistory): Float64Array {
  let lastReplaced = -1;
  let seen = 0;
  let index = 0;
  // Entries are unique (ids are): the last of them found ends the walk.
  if (e.replaced.length > 0)
    walkHistoryTo(e.metas, e.live, e.end, e.atEnd, (code) => {
      if (e.replaced.includes(code)) {
        lastReplaced = index;
        seen++;
      }
      index++;
      return seen < e.replaced.length;
    });
  const out = new Float64Array(lastReplaced + 1);
  let i = 0;
  if (out.length > 0)
    walkHistoryTo(e.metas, e.live, e.end, e.atEnd, (code) => {
      out[i++] = code;
      return i < out.length;
    });
  return out;
}

/**
 * True when the history before `until` is the prepare step's, entry for entry, without
 * listing it: the same turn array (its turns before `end` are the same), the same end, and
 * the same live rows at the same places. False means "list and compare".
 */
function historyUnchanged(e: ExpectedHistory, metas: readonly TurnMeta[], summaries: readonly ExistingSummary[]): boolean {
  if (metas !== e.metas) return false;
  const end = Math.min(metas.length, e.until);
  if (end !== e.end || (end === metas.length) !== e.atEnd) return false;
  const live = liveTwoLineSummaries(summaries);
  if (live.length !== e.live.length) return false;
  for (let i = 0; i < live.length; i++) {
    const a = live[i];
    const b = e.live[i];
    if (a.id !== b.id || a.firstPosition !== b.firstPosition || a.lastPosition !== b.lastPosition) return false;
  }
  return true;
}

/** Whether the history before `until` begins with `expected` (historyOf(...).slice(0, expected.length) equals it). */
function historyStartsWith(metas: readonly TurnMeta[], summaries: readonly ExistingSummary[], until: number, expected: Float64Array): boolean {
  let i = 0;
  let same = true;
  if (expected.length > 0)
    walkHistory(metas, summaries, until, (code) => {
      if (code !== expected[i]) same = false;
      else i++;
      return same && i < expected.length;
    });
  return same && i === expected.length;
}
// historyOf(metas, summaries, until) is a prefix of the whole history: entries come in
// position order and every entry before `until` (a turn there, a summary starting there) is in it.
// A check that the history still begins with entries before `until` needs no more than that
// (an entry names its turn or summary, hence its position), which keeps a pass on a
// 100,000-turn session from listing 50,000 ids twice per firing.

/** The ids of the live summaries in order: with the same turns, equal lists are equal histories. */
const liveIds = (summaries: readonly ExistingSummary[]) => liveTwoLineSummaries(summaries).map((s) => s.id).join(',');

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


export interface DigestStepResult {
  written: boolean;
  abandoned: boolean;
  summaryId?: number;
  turns: number;
}

/** The live rows' texts as summarizer items (what a new row continues). */
function liveItems(ctx: PassContext, live: readonly ExistingSummary[]): SummarizeItem[] {
  // Each live row brings the facts kept with it (the digest merges them instead of re-reading its text).
  return live.map((s) => summaryToItem(ctx.store.summaryText(s.id), undefined, ctx.store.summaryFacts?.(s.id) ?? undefined));
}

/** Emergency: the model-free digest of (live summary + [coveredUntil, keptStart)), committed now. */
export async function twoLineDigestStep(ctx: PassContext, params: TwoLineParams): Promise<DigestStepResult> {
  const summaries = ctx.store.summaries();
  const ix = buildSpanIndex(ctx.metas);
  const d = decideTwoLine({ turns: ctx.metas, summaries, state: currentState(ctx), params, measure: ctx.measure, reported: ctx.reported }, ix);
  if (!d.digestRange) return { written: false, abandoned: false, turns: 0 };
  const [from, to] = d.digestRange;
  const before = liveIds(summaries);
  const turns = ctx.readTurns(from, to).filter((t) => t.role !== 'system');
  const liveTokens = d.live.reduce((acc, s) => acc + s.tokenCount, 0);
  const targetTokens = digestTargetTokens(liveTokens + convTokensIn(ix, from, to));
  // A projection has no text to digest: its digest is a stand-in of the target size, as its other summaries are.
  const { text, facts } = ctx.projected ? { text: '[projected digest]', facts: undefined } : extractiveSummarize({ purpose: 'digest', items: [...liveItems(ctx, d.live), ...turnsToItems(turns)], targetTokens, tier: 'normal' }, (t) => ctx.countTokens(t));
  const tokenCount = ctx.projected ? targetTokens : ctx.countTokens(text);
  const span = convSpan(ctx.metas, from, to, ix);
  const superseded = d.live.map((s) => s.id);
  return ctx.store.commit((w): DigestStepResult => {
    if (liveIds(w.summaries()) !== before) {
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
      firstPosition: d.live[0]?.firstPosition ?? span.first,
      lastPosition: span.last,
      turnIds: span.turnIds,
      childSummaryIds: superseded,
      facts,
    });
    w.markCompacted(superseded);
    w.setState({ ...w.state(), coveredUntil: to });
    ctx.event('digest_written', { summaryId: id, turns: span.turnIds.length, tokens: tokenCount, coveredUntil: to, pressure: d.pressure, superseded });
    return { written: true, abandoned: false, summaryId: id, turns: span.turnIds.length };
  });
}

interface ChunkResult {
  from: number;
  to: number;
  text: string;
  tokenCount: number;
  tier: SummaryTier;
  model: string;
  cacheKey: string | null;
  cacheHit: boolean;
  /** The facts the summarizer returned with the text, kept beside it and merged by the fold. */
  facts?: FactSet;
}

export interface BackgroundStepResult {
  /** Whether there was anything to do. */
  ran: boolean;
  committed: boolean;
  abandoned: boolean;
  digestsUpgraded: number;
  /** Chunks the new turns were read in (model calls of the map step). */
  chunksCreated: number;
  /** Summary rows written (1 when committed). */
  summariesCreated: number;
  turnsCompacted: number;
  fallbackChunks: number;
  tiers: string[];
  reason: string;
}

/** The model summary; optimistic commit (see the file header). */
export async function twoLineBackgroundStep(ctx: PassContext, params: TwoLineParams): Promise<BackgroundStepResult> {
  const prepared = await prepareTwoLineBackground(ctx, params);
  return 'commit' in prepared ? prepared.commit(ctx) : prepared;
}

const TIER_RANK: Record<string, number> = { normal: 0, aggressive: 1, fallback: 2, truncation: 3, digest: 4 };

/**
 * The background step's slow part (summarize, no lock held), returning its optimistic
 * commit to run now (the engine) or some model calls later (the live replay: the
 * background pass lands while the conversation goes on). The commit takes the context of
 * the moment it runs: the history may have grown (fine) or moved (abandoned).
 */
export async function prepareTwoLineBackground(ctx: PassContext, params: TwoLineParams): Promise<BackgroundStepResult | { commit(at: PassContext): Promise<BackgroundStepResult> }> {
  const summaries = ctx.store.summaries();
  const ix = buildSpanIndex(ctx.metas);
  const d = decideTwoLine({ turns: ctx.metas, summaries, state: currentState(ctx), params, measure: ctx.measure, reported: ctx.reported }, ix);
  const empty = { committed: false, abandoned: false, digestsUpgraded: 0, chunksCreated: 0, summariesCreated: 0, turnsCompacted: 0, fallbackChunks: 0, tiers: [] as string[] };
  if (!d.backgroundRange) return { ...empty, ran: false, reason: `nothing for the background pass: no digest, ${d.pendingTurns} pending turns (minBatch ${params.minBatch})` };
  const [rangeFrom, rangeTo] = d.backgroundRange;
  const jobs = chunkRange(ix, rangeFrom, rangeTo, params.chunkChars, 'chars');

  // The history must still begin like this, up to the last entry this pass replaces.
  let until = rangeTo;
  for (const s of d.live) until = Math.max(until, s.firstPosition + 1);
  // The entries this pass replaces: the live rows, and the last turn of [coveredUntil, rangeTo)
  // (found from the end: no list of the range's ids).
  let lastTurn = rangeTo - 1;
  while (lastTurn >= d.coveredUntil && ctx.metas[lastTurn].role === 'system') lastTurn--;
  const replaced = d.live.map((s) => summaryCode(s.id));
  if (lastTurn >= d.coveredUntil) replaced.push(turnCode(ctx.metas[lastTurn].id));
  const historyEnd = Math.min(ctx.metas.length, until);
  const expected: ExpectedHistory = { metas: ctx.metas, ix, live: d.live, until, end: historyEnd, atEnd: historyEnd === ctx.metas.length, replaced };
  const digests = d.live.filter((s) => s.kind === 'digest').length;
  ctx.event('background_started', { digests, chunks: jobs.length, pendingTurns: d.pendingTurns, from: rangeFrom, to: rangeTo });

  let done = 0;
  let tokensDone = 0;
  const steps = jobs.length + (jobs.length > 1 || d.base ? 1 : 0);
  ctx.progress(0, steps, 0);
  const baseText = d.base ? ctx.store.summaryText(d.base.id) : null;
  const baseTokens = d.base?.tokenCount ?? 0;
  const single = jobs.length === 1;
  const results = await mapPool(ctx, jobs, params.concurrency, async ([from, to]): Promise<ChunkResult> => {
    const turns = ctx.readTurns(from, to).filter((t) => t.role !== 'system');
    let r: ChunkResult;
    try {
      const s = await ctx.summarize({ purpose: 'chunk', items: turnsToItems(turns), targetTokens: chunkTargetTokens(convTokensIn(ix, from, to)) }, { allowFallback: false });
      r = { from, to, text: s.text, tokenCount: s.tokenCount, tier: s.tier, model: s.model, cacheKey: s.cacheKey, cacheHit: s.cacheHit, facts: s.facts };
    } catch (err) {
      if (isAbort(ctx, err)) throw err;
      const text = boundedTurnList(turns);
      ctx.event('chunk_fallback', { from, to, error: err instanceof Error ? err.message : String(err) });
      r = { from, to, text, tokenCount: ctx.countTokens(text), tier: 'fallback', model: TURN_LIST_MODEL, cacheKey: null, cacheHit: false };
    }
    tokensDone += r.tokenCount;
    ctx.progress(++done, steps, tokensDone);
    return r;
  });
  ctx.checkCancelled();
  // Fold: one text for the pass. A single chunk with no base and no digest is already that text.
  // A standing digest is upgraded through the digest template (the compaction-between-turns
  // design): the digest is the text to rewrite, the base (which it merged) and the chunk
  // summaries of its turns follow it.
  const digest = d.live.find((s) => s.kind === 'digest') ?? null;
  let folded: ChunkResult = results[0];
  // Every rung the pass went through (the `tiersUsed` stat): each chunk's, then the fold's when there is one.
  const tiers: string[] = results.map((r) => r.tier);
  if (!(single && !baseText && !digest)) {
    const chunkItems: SummarizeItem[] = results.map((r) => summaryToItem(r.text, undefined, r.facts));
    const target = passSummaryTargetTokens(baseTokens + convTokensIn(ix, rangeFrom, rangeTo));
    const request = digest
      ? { purpose: 'digest' as const, items: [...(baseText && d.base ? [summaryToItem(baseText, undefined, ctx.store.summaryFacts?.(d.base.id) ?? undefined)] : []), ...chunkItems], priorSummary: ctx.store.summaryText(digest.id), targetTokens: target }
      : { purpose: 'chunk' as const, items: chunkItems, priorSummary: baseText, targetTokens: target };
    try {
      const s = await ctx.summarize(request, { allowFallback: false });
      folded = { from: rangeFrom, to: rangeTo, text: s.text, tokenCount: s.tokenCount, tier: s.tier, model: s.model, cacheKey: s.cacheKey, cacheHit: s.cacheHit, facts: s.facts };
    } catch (err) {
      if (isAbort(ctx, err)) throw err;
      // The fold failed: the base and the chunk summaries side by side (bounded: each is a summary).
      const text = [...(baseText ? [baseText] : []), ...results.map((r) => r.text)].join('\n\n');
      ctx.event('chunk_fallback', { from: rangeFrom, to: rangeTo, step: 'fold', error: err instanceof Error ? err.message : String(err) });
      folded = { from: rangeFrom, to: rangeTo, text, tokenCount: ctx.countTokens(text), tier: 'fallback', model: TURN_LIST_MODEL, cacheKey: null, cacheHit: false };
    }
    tiers.push(folded.tier);
    const worst = results.reduce((w, r) => (TIER_RANK[r.tier] > TIER_RANK[w] ? r.tier : w), folded.tier);
    folded = { ...folded, tier: worst };
    ctx.progress(steps, steps, tokensDone + folded.tokenCount);
  }
  ctx.checkCancelled();
  const fallbackChunks = results.filter((r) => r.tier === 'fallback').length;
  return { commit: (at: PassContext) => commitTwoLineBackground(at, d, expected, folded, jobs.length, fallbackChunks, tiers, empty) };
}

function commitTwoLineBackground(ctx: PassContext, d: TwoLineDecision, e: ExpectedHistory, r: ChunkResult, chunks: number, fallbackChunks: number, tiers: string[], empty: Omit<BackgroundStepResult, 'ran' | 'reason'>): Promise<BackgroundStepResult> {
  return ctx.store.commit((w): BackgroundStepResult => {
    const summaries = w.summaries();
    const expected = historyUnchanged(e, ctx.metas, summaries) ? null : expectedCodes(e);
    if (expected && !historyStartsWith(ctx.metas, summaries, e.until, expected)) {
      const now = historyOf(ctx.metas, summaries);
      const at = expected.findIndex((x, i) => now[i] !== codeText(x));
      ctx.event('compaction_abandoned', { step: 'background', reason: 'the history moved while the chunks were summarized', expected: at >= 0 ? codeText(expected[at]) : null, found: now[at] ?? null, chunks });
      return { ...empty, ran: true, abandoned: true, reason: 'abandoned: the history moved during the summarize step (the cached chunks make the retry cheap)' };
    }
    // The same turn array as the prepare step's: its index counts in O(1).
    const ix = ctx.metas === e.metas ? e.ix : undefined;
    const span = convSpan(ctx.metas, r.from, r.to, ix);
    // Supersedes every live row and the base (which a digest may have superseded already).
    const superseded = [...new Set([...d.live.map((s) => s.id), ...(d.base ? [d.base.id] : [])])];
    const id = w.insertSummary(
      withLazy<NewSummary, 'turnIds'>(
        {
          kind: 'chunk',
          depth: 0,
          text: r.text,
          tokenCount: r.tokenCount,
          tier: r.tier,
          model: r.model,
          promptVersion: ctx.variant.summarizer.promptVersion,
          cacheKey: r.cacheKey,
          cacheHit: r.cacheHit,
          firstPosition: d.base?.firstPosition ?? d.live[0]?.firstPosition ?? span.first,
          lastPosition: span.last,
        },
        // Listed when the store reads them (SQLite at once; a replay's memory when asked).
        'turnIds',
        () => span.turnIds,
        { childSummaryIds: superseded, facts: r.facts },
      ),
    );
    w.markCompacted(superseded);
    // An upgrade is a model summary standing where the digest stood: when every chunk fell back
    // to its turn list, the digest was replaced, not upgraded.
    const digestsUpgraded = fallbackChunks < chunks ? d.live.filter((s) => s.kind === 'digest').length : 0;
    // Turns newly taken out of what the model sees: those the live rows did not cover yet.
    let turnsCompacted = 0;
    if (ix) turnsCompacted = r.to > d.coveredUntil ? convCountIn(ix, d.coveredUntil, r.to) : 0;
    else for (let p = d.coveredUntil; p < r.to; p++) if (ctx.metas[p].role !== 'system') turnsCompacted++;
    const coveredUntil = Math.max(w.state().coveredUntil ?? d.prefixEnd, r.to);
    w.setState({ ...w.state(), coveredUntil });
    const digestsReplaced = d.live.some((s) => s.kind === 'digest');
    ctx.event('background_completed', { summaryId: id, digestsUpgraded, chunks, fallbackChunks, cacheHit: r.cacheHit, coveredUntil, superseded });
    const what = fallbackChunks < chunks ? 'one model summary' : 'one list of turns (every chunk failed)';
    return { ran: true, committed: true, abandoned: false, digestsUpgraded, chunksCreated: chunks, summariesCreated: 1, turnsCompacted, fallbackChunks, tiers, reason: `${what} over ${ix ? convCountIn(ix, r.from, r.to) : span.turnIds.length} new turns in ${chunks} chunk(s)${digestsReplaced ? (digestsUpgraded > 0 ? ', superseding the digest' : ', replacing the digest') : ''}` };
  });
}

/** The engine's pass: the digest when at the emergency line, then the background step to completion. */
export const twoLinePass: PassFn = async (ctx, resolved, opts) => {
  const params = resolved as TwoLineParams;
  const force = opts?.force ?? false;
  const d = decideTwoLine({ turns: ctx.metas, summaries: ctx.store.summaries(), state: ctx.state, params, measure: ctx.measure, reported: ctx.reported });
  const base: LineStats = { level: d.level, pressure: d.pressure, warningPct: d.warningPct, emergencyPct: d.emergencyPct, linesFellBack: d.fellBack };
  if (!force && !d.digestRange && !d.backgroundRange) {
    return { status: 'skipped', stats: outcomeStats(base, d, null, null) };
  }
  ctx.event('compaction_started', { level: base.level, pressure: base.pressure, warningPct: base.warningPct, emergencyPct: base.emergencyPct, linesFellBack: base.linesFellBack, pendingTurns: d.pendingTurns, digests: d.live.filter((s) => s.kind === 'digest').length });
  const digest = d.level === 'emergency' ? await twoLineDigestStep(ctx, params) : NO_DIGEST;
  ctx.checkCancelled();
  // The ordinary profile's model summary at the emergency line is written right away, never deferred.
  const rightAway = params.profile === ORDINARY_PROFILE && d.level === 'emergency';
  if (ctx.live && !digest.abandoned && !rightAway) {
    // Live: the background pass is summarized now and lands later (one task per conversation).
    // While one is pending, a crossing only sets the follow-up mark: the loop runs the pass
    // once more when the pending one lands.
    if (ctx.live.backgroundPending) {
      const after = decideTwoLine({ turns: ctx.metas, summaries: ctx.store.summaries(), state: currentState(ctx), params, measure: ctx.measure, reported: ctx.reported });
      const out = outcomeOf(base, d, digest, null, ctx);
      return after.backgroundRange ? { ...out, followUp: true } : out;
    }
    const prepared = await prepareTwoLineBackground(ctx, params);
    // The commit's record counts only its own work: the digest was this firing's.
    const deferred =
      prepared && 'commit' in prepared
        ? { commit: async (at: PassContext) => outcomeOf(base, d, NO_DIGEST, await prepared.commit(at), at) }
        : undefined;
    const out = outcomeOf(base, d, digest, prepared && !('commit' in prepared) ? prepared : null, ctx);
    return deferred ? { ...out, deferred } : out;
  }
  const bg = digest.abandoned ? null : await twoLineBackgroundStep(ctx, params);
  return outcomeOf(base, d, digest, bg, ctx);
};

/** No digest step (below the emergency line, or a deferred commit's record). */
const NO_DIGEST: DigestStepResult = { written: false, abandoned: false, turns: 0 };

/** The lines and the pressure, first in every stats object of the pass. */
interface LineStats {
  level: TwoLineDecision['level'];
  pressure: number;
  warningPct: number;
  emergencyPct: number;
  linesFellBack: boolean;
}

function outcomeOf(base: LineStats, d: TwoLineDecision, digest: DigestStepResult, bg: BackgroundStepResult | null, ctx: PassContext): PassOutcome {
  const wrote = digest.written || (bg?.committed ?? false);
  return { status: wrote ? 'completed' : 'skipped', stats: outcomeStats(base, d, digest, bg), state: currentState(ctx) };
}

/**
 * The pass's stats (a skipped pass's when `digest` is null: the lines and the reason). The
 * reason is written on first read (an own enumerable lazy field, shared/lazy.ts: the engine
 * stores stats as JSON): a live firing whose background pass lands later records only the commit's.
 */
function outcomeStats(base: LineStats, d: TwoLineDecision, digest: DigestStepResult | null, bg: BackgroundStepResult | null): Record<string, unknown> {
  // The key order is part of the stored JSON: lines, then the reason, then the work done (withLazy keeps it).
  const lines = { level: base.level, pressure: base.pressure, warningPct: base.warningPct, emergencyPct: base.emergencyPct, linesFellBack: base.linesFellBack };
  if (!digest) return withLazy<Record<string, unknown>, 'reason'>(lines, 'reason', () => d.reason);
  return withLazy<Record<string, unknown>, 'reason'>(lines, 'reason', () => (bg ? `${d.reason}; ${bg.reason}` : digest.abandoned ? `${d.reason}; abandoned before the digest` : d.reason), {
    digestWritten: digest.written,
    digestTurns: digest.turns,
    digestsUpgraded: bg?.digestsUpgraded ?? 0,
    chunksCreated: bg?.chunksCreated ?? 0,
    summariesCreated: (digest.written ? 1 : 0) + (bg?.summariesCreated ?? 0),
    // The turns taken out of what the model sees: the digest's, then the background pass's beyond it.
    turnsCompacted: digest.turns + (bg?.turnsCompacted ?? 0),
    fallbackChunks: bg?.fallbackChunks ?? 0,
    tiersUsed: countTiers([...(digest.written ? ['digest'] : []), ...(bg?.tiers ?? [])]),
    abandoned: digest.abandoned || (bg?.abandoned ?? false),
  });
}
