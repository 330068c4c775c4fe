/**
 * Reference of `two-line` (the compaction-between-turns design, shared/strategies/two-line.ts).
 * pressure = the context the model receives (by the variant's measure) / contextWindow.
 * - Below the warning line nothing happens.
 * - Agent profile: at or above the warning line, once minBatch conversation turns wait beyond
 *   the kept window (the last keepLast turns, moved earlier to a safe cut), a background pass
 *   summarizes them; at the emergency line a model-free digest replaces them at once and the
 *   background pass upgrades it.
 * - Ordinary profile: nothing between the lines; at the emergency line the model summary is
 *   written at once (no digest).
 * The background pass reads its turns when scheduled and lands `commitDelayCalls` model calls
 * later (at the next call at the earliest); if the history moved meanwhile (a digest was
 * written) it is abandoned. One task per conversation: while one is pending, a crossing only
 * sets a follow-up mark, and the pass runs once more where the pending one lands. One summary
 * row is live at a time; a new row supersedes the live rows and the previous model summary (one
 * chunk with no earlier model summary and no standing digest is that row; otherwise one more call
 * folds the chunks, upgrading the digest where one stands).
 */
import { chunkTargetTokens, digestTargetTokens, effectiveKeepLast, effectiveLines, ORDINARY_PROFILE, passSummaryTargetTokens, type TwoLineParams } from '../../strategies/two-line.js';
import { readContext } from '../../usage/measure.js';
import { convCount, convEdges, convPosition, convTokens, isConv, reportedOf, safeAtOrBefore, standInTokens, systemPrefixEnd, type RefFiring, type RefResult, type RefSession, type RefSummary } from './common.js';
import { referenceChunks } from './chunks.js';

interface Pending {
  due: number;
  /** The live rows when it was scheduled: it lands only on the same history. */
  liveIds: string;
  row: RefSummary;
  supersedes: RefSummary[];
  coveredTo: number;
  /** The pressure when the pass that scheduled it fired (what its commit reports). */
  pressure: number;
}

export function referenceTwoLine(s: RefSession, p: TwoLineParams): RefResult {
  const rows: RefSummary[] = [];
  let coveredUntilState: number | null = null;
  let pending: Pending | null = null;
  let followUp = false;
  const views: number[] = [];
  const firings: RefFiring[] = [];
  const lines = effectiveLines(p);
  const keepLast = effectiveKeepLast(p);
  const ordinary = p.profile === ORDINARY_PROFILE;
  const live = () => rows.filter((x) => !x.compacted).sort((a, b) => a.first - b.first || a.id - b.id);
  const liveIds = () => live().map((x) => x.id).join(',');

  /** The design's decision over the turns before `end` at call k. */
  const decide = (k: number, end: number) => {
    const prefixEnd = systemPrefixEnd(s.metas, end);
    let coveredUntil = Math.max(prefixEnd, coveredUntilState ?? prefixEnd);
    for (const x of live()) coveredUntil = Math.max(coveredUntil, x.last + 1);
    coveredUntil = Math.min(coveredUntil, end);
    let visible = live().reduce((a, x) => a + x.tokens, 0);
    for (let q = 0; q < end; q++) if (!isConv(s.metas[q]) || q < prefixEnd || q >= coveredUntil) visible += s.metas[q].tokenCount;
    const pressure = readContext(s.trigger, visible, reportedOf(s, k)).tokens / p.contextWindow;
    const level = pressure * 100 >= lines.emergencyPct ? 'emergency' : pressure * 100 >= lines.warningPct ? 'warning' : 'none';
    const keptStart = Math.max(coveredUntil, safeAtOrBefore(s.metas, convPosition(s.metas, end, Math.max(0, convCount(s.metas, 0, end) - keepLast))));
    const pendingTurns = convCount(s.metas, coveredUntil, keptStart);
    const digest = !ordinary && level === 'emergency' && pendingTurns > 0;
    const digestPending = live().some((x) => x.kind === 'digest');
    let base: RefSummary | null = null;
    for (const x of rows) if (x.kind === 'chunk' && (!base || x.last > base.last || (x.last === base.last && x.id > base.id))) base = x;
    const baseEnd = Math.min(keptStart, Math.max(prefixEnd, base ? base.last + 1 : prefixEnd));
    const wants = digestPending || digest || (ordinary ? level === 'emergency' && pendingTurns > 0 : level !== 'none' && pendingTurns >= p.minBatch);
    const background = wants && convCount(s.metas, baseEnd, keptStart) > 0 ? ([baseEnd, keptStart] as [number, number]) : null;
    return { prefixEnd, coveredUntil, visible, pressure, level, keptStart, digest, background, base };
  };

  /** The model summary the background pass would write for the decision, or null. */
  const modelSummary = (end: number, d: ReturnType<typeof decide>, firedAt: number): Omit<Pending, 'due' | 'liveIds'> | null => {
    if (!d.background) return null;
    const [a, b] = d.background;
    const chunks = referenceChunks(s.metas, end, a, b, p.chunkChars, 'chars');
    // One chunk with no earlier model summary and no standing digest is the summary itself;
    // otherwise one more call folds the chunks (upgrading the digest where one stands).
    const digestStands = live().some((x) => x.kind === 'digest');
    const tokens = chunks.length === 1 && !d.base && !digestStands ? chunkTargetTokens(convTokens(s.metas, a, b)) : passSummaryTargetTokens((d.base ? d.base.tokens : 0) + convTokens(s.metas, a, b));
    const edges = convEdges(s.metas, a, b)!;
    const first = d.base ? d.base.first : (live()[0]?.first ?? edges[0]);
    const supersedes = [...live(), ...(d.base && !live().includes(d.base) ? [d.base] : [])];
    return { row: { id: -1, kind: 'chunk', depth: 0, first, last: edges[1], tokens: standInTokens(tokens), chars: 0, compacted: false }, supersedes, coveredTo: b, pressure: firedAt };
  };

  const land = (m: Omit<Pending, 'due' | 'liveIds'>) => {
    for (const x of m.supersedes) x.compacted = true;
    rows.push({ ...m.row, id: rows.length });
    coveredUntilState = Math.max(coveredUntilState ?? 0, m.coveredTo);
  };

  /** The pass at call k; returns the firing when it changed the view. */
  const pass = (k: number, end: number): RefFiring | null => {
    const d = decide(k, end);
    if (!d.digest && !d.background) return null;
    let spans: Array<[number, number]> = [];
    if (d.digest) {
      const a = d.coveredUntil;
      const b = d.keptStart;
      const edges = convEdges(s.metas, a, b)!;
      const liveRows = live();
      const tokens = standInTokens(digestTargetTokens(liveRows.reduce((x, r) => x + r.tokens, 0) + convTokens(s.metas, a, b)));
      const row: RefSummary = { id: rows.length, kind: 'digest', depth: 0, first: liveRows[0]?.first ?? edges[0], last: edges[1], tokens, chars: 0, compacted: false };
      for (const x of liveRows) x.compacted = true;
      rows.push(row);
      coveredUntilState = b;
      spans = [[row.first, row.last]];
    }
    if (ordinary && d.level === 'emergency') {
      // Written at once.
      const m = modelSummary(end, decide(k, end), d.pressure);
      if (m) {
        land(m);
        spans.push([m.row.first, m.row.last]);
      }
    } else if (pending) {
      if (decide(k, end).background) followUp = true;
    } else {
      const m = modelSummary(end, decide(k, end), d.pressure);
      if (m) pending = { ...m, due: Math.max(k + 1, k + s.commitDelayCalls), liveIds: liveIds() };
    }
    return spans.length > 0 ? { call: k, kind: 'fire', figure: d.pressure, spans } : null;
  };

  for (let k = 0; k < s.calls.length; k++) {
    const end = s.calls[k].position;
    let landed = false;
    // (Set by pass(): TypeScript cannot see a closure's writes.)
    const due = pending as Pending | null;
    if (due && k >= due.due) {
      const m: Pending = due;
      pending = null;
      landed = true;
      if (m.liveIds === liveIds()) {
        land(m);
        firings.push({ call: k, kind: 'commit', figure: m.pressure, spans: [[m.row.first, m.row.last]] });
      } else firings.push({ call: k, kind: 'commit', figure: m.pressure, spans: [] });
    }
    const again = landed && followUp;
    if (again) followUp = false;
    if (again || decide(k, end).level !== 'none') {
      const f = pass(k, end);
      if (f) firings.push(f);
    }
    views.push(decide(k, end).visible);
  }
  return { views, firings };
}
