/**
 * What one context does with each turn before a call (verbatim, reshaped, masked,
 * summarized into which summary, dropped), read from the message list the model receives
 * (buildReplay's, shared/replay/build.ts) against the recorded turns. Pure.
 */
import type { ReplayMessage } from '../contract.js';
import { stableJson, type ContentBlock, type Turn } from '../model/turn.js';
import { maskPlaceholder } from '../strategies/masking.js';
import type { FateSegment, TurnFate } from './types.js';

/** "[tool result masked: " — how every masking placeholder starts. */
const MASK_PREFIX = maskPlaceholder('\u0000', 0).split('\u0000')[0];

export type FateTurn = Pick<Turn, 'position' | 'blocks'>;
/** What the fates read of a message the model receives (token counts are not needed). */
export type FateMessage = Pick<ReplayMessage, 'origin' | 'parts' | 'blocks'>;
export interface FateSummary {
  id: number;
  firstPosition: number;
  lastPosition: number;
}

/** Blocks the normalizer keeps as they are: it drops whitespace-only text and empty thinking. */
function meaningful(b: ContentBlock): boolean {
  if (b.type === 'text') return b.text.trim() !== '';
  if (b.type === 'thinking') return b.thinking.trim() !== '';
  return true;
}

/** The blocks of the messages one context sends, indexed lazily once per message. */
class SentBlocks {
  private readonly ids = new Map<FateMessage, Set<ContentBlock>>();
  private readonly values = new Map<FateMessage, Set<string>>();

  /** Whether `b` itself (the same object) is one of the message's blocks. */
  same(m: FateMessage, b: ContentBlock): boolean {
    // A short message is scanned; a long one (many turns merged into it) gets a set once.
    if (m.blocks.length <= 16) return m.blocks.includes(b);
    let set = this.ids.get(m);
    if (!set) this.ids.set(m, (set = new Set(m.blocks)));
    return set.has(b);
  }

  /** The message's blocks by value. */
  json(m: FateMessage): ReadonlySet<string> {
    let set = this.values.get(m);
    if (!set) this.values.set(m, (set = new Set(m.blocks.map((b) => stableJson(b)))));
    return set;
  }
}

/**
 * The fate of a turn sent in `message`. A block the view passed through unchanged is the very
 * same object in the message (views and the normalizer copy only what they change), so identity
 * answers most blocks; only the others are compared by value (stableJson), against the
 * message's blocks serialized once per message (shared by every turn merged into it).
 */
function fateOfSent(turn: FateTurn, message: FateMessage, sent: SentBlocks): TurnFate {
  let changed = false;
  let masked = false;
  for (const b of turn.blocks) {
    if (!meaningful(b) || sent.same(message, b) || sent.json(message).has(stableJson(b))) continue;
    changed = true;
    if (b.type === 'tool_result') {
      const id = b.tool_use_id;
      masked ||= message.blocks.some((m) => m.type === 'tool_result' && (m.tool_use_id === id || m.tool_use_id.startsWith(`${id}_`)) && m.content.includes(MASK_PREFIX));
    }
  }
  return masked ? 'masked' : changed ? 'reshaped' : 'verbatim';
}

/** Consecutive equal (fate, summary) runs. */
export function segmentsOf(fates: readonly TurnFate[], summaryIds: ReadonlyArray<number | null>): FateSegment[] {
  const out: FateSegment[] = [];
  for (let p = 0; p < fates.length; p++) {
    const last = out[out.length - 1];
    if (last && last.fate === fates[p] && last.summaryId === summaryIds[p] && last.to === p - 1) last.to = p;
    else out.push({ from: p, to: p, fate: fates[p], summaryId: summaryIds[p] });
  }
  return out;
}

export interface TurnFates {
  fates: TurnFate[];
  summaryIds: Array<number | null>;
}

/**
 * The fate of every turn in `turns` (positions 0..n-1, in order) under `messages`. A turn
 * not sent is `summarized` when a summary that IS sent covers its position (the
 * innermost such summary when several do), else `dropped`.
 */
export function turnFates(turns: readonly FateTurn[], messages: readonly FateMessage[], summaries: readonly FateSummary[]): TurnFates {
  const sentIn = new Map<number, FateMessage>();
  const sent = new SentBlocks();
  const sentSummaries = new Set<number>();
  for (const m of messages) {
    for (const o of m.parts ?? [m.origin]) {
      if (o.kind === 'turn') sentIn.set(o.position, m);
      else if (o.kind === 'summary') sentSummaries.add(o.summaryId);
    }
  }
  // Narrowest first, so a turn under nested summaries names the innermost one sent.
  const covering = summaries.filter((s) => sentSummaries.has(s.id)).sort((a, b) => a.lastPosition - a.firstPosition - (b.lastPosition - b.firstPosition) || a.id - b.id);
  const fates: TurnFate[] = [];
  const summaryIds: Array<number | null> = [];
  for (const t of turns) {
    const m = sentIn.get(t.position);
    if (m) {
      fates.push(fateOfSent(t, m, sent));
      summaryIds.push(null);
      continue;
    }
    const s = covering.find((x) => x.firstPosition <= t.position && t.position <= x.lastPosition);
    fates.push(s ? 'summarized' : 'dropped');
    summaryIds.push(s ? s.id : null);
  }
  return { fates, summaryIds };
}

/**
 * The source tool's context at a call whose turns are [0, position): the turns its own
 * compactions covered (boundary at or before the call's turn) are summarized into that compaction
 * (`summaryId` = the compaction's id); every other turn is sent as recorded.
 */
export function sourceFates(turnCount: number, position: number, external: ReadonlyArray<{ id: number; firstPosition: number; lastPosition: number; boundaryPosition: number }>): TurnFates {
  const fates: TurnFate[] = new Array<TurnFate>(turnCount).fill('verbatim');
  const summaryIds: Array<number | null> = new Array<number | null>(turnCount).fill(null);
  for (const x of external) {
    // boundaryPosition is the first turn after the compaction: a call at or after it was sent the summary.
    if (x.boundaryPosition > position) continue;
    for (let p = Math.max(0, x.firstPosition); p <= Math.min(turnCount - 1, x.lastPosition); p++) {
      fates[p] = 'summarized';
      summaryIds[p] = x.id;
    }
  }
  return { fates, summaryIds };
}

export function countFates(fates: readonly TurnFate[]): Record<TurnFate, number> {
  const out: Record<TurnFate, number> = { verbatim: 0, reshaped: 0, masked: 0, summarized: 0, dropped: 0 };
  for (const f of fates) out[f]++;
  return out;
}
