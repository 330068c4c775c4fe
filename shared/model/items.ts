/**
 * How a span of turns (or child summaries) becomes summarizer input. Every pass builds
 * its `SummarizeItem`s here so that the cache key, the extractive summarizer and the
 * OpenAI prompts all see the same canonical text: block content only, never turn ids,
 * positions or timestamps (the cache key must not change when the same content is
 * imported again under new ids).
 *
 * It lives in shared/model/, below both readers of a span: the summarizers
 * (shared/summarize/) and the loss ledger's fact extractor (shared/facts/), which grades
 * their summaries and so must share nothing with them but this canonical text.
 */
import { keptOn } from '../lazy.js';
import type { SummarizeItem } from '../strategies/summarizer.js';
import { stableJson, type ContentBlock, type Turn } from './turn.js';

/**
 * Markers the renderer writes around non-text blocks (a tool_use is one JSON line; thinking
 * and tool results may span lines and get a closing marker). The extractive summarizer
 * reads them back (an errored tool result is an "error" line; a tool_use carries the
 * command), and they tell a model which lines are tool traffic.
 */
export const ITEM_MARKERS = {
  thinking: '[thinking]',
  toolUse: '[tool_use',
  toolResult: '[tool_result]',
  toolError: '[tool_result error]',
  /** Closes a multi-line thinking or tool_result block, so a text block after it reads as said. */
  endThinking: '[/thinking]',
  endToolResult: '[/tool_result]',
} as const;

/** One content block as canonical summarizer text (see ITEM_MARKERS). */
export function blockToItemText(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'thinking':
      return `${ITEM_MARKERS.thinking} ${b.thinking} ${ITEM_MARKERS.endThinking}`;
    case 'tool_use':
      return `${ITEM_MARKERS.toolUse} ${b.name}] ${stableJson(b.input)}`;
    case 'tool_result':
      return `${b.is_error ? ITEM_MARKERS.toolError : ITEM_MARKERS.toolResult} ${b.content} ${ITEM_MARKERS.endToolResult}`;
    case 'image':
      return `[image: ${b.mediaType}, ${b.sizeBytes} bytes]`;
    default: {
      const _exhaustive: never = b;
      return _exhaustive;
    }
  }
}

/**
 * A turn as one summarizer item (role kept; ids, positions and timestamps dropped), made once
 * per turn object and kept on it (`keptOn`, shared/lazy.ts): a replay reads each turn three times — its
 * summarizer, its summaries' ledgers and its firings' ledgers — and a turn never changes.
 * Callers read items and never change them.
 */
export function turnToItem(turn: Pick<Turn, 'role' | 'blocks'>): SummarizeItem {
  return keptOn(turn, ITEM, makeItem);
}

/** itemSegments of an item's text, worked out once per item object (kept on it like turnToItem's item). */
export function itemSegmentsOf(item: SummarizeItem): readonly ItemSegment[] {
  return keptOn(item, SEGMENTS, makeSegments);
}

const ITEM = Symbol('summarizer item');
const SEGMENTS = Symbol('item segments');
const makeItem = (turn: Pick<Turn, 'role' | 'blocks'>): SummarizeItem => ({ kind: 'turn', role: turn.role, text: turn.blocks.map(blockToItemText).join('\n') });
const makeSegments = (item: SummarizeItem): ItemSegment[] => itemSegments(item.text);

export function turnsToItems(turns: readonly Pick<Turn, 'role' | 'blocks'>[]): SummarizeItem[] {
  return turns.map(turnToItem);
}

/** Where a child summary sits: its depth, turn positions and first/last turn timestamps (the depth ≥ 2 prompt labels children with them). */
export type SummaryItemPlace = Pick<SummarizeItem, 'depth' | 'firstPosition' | 'lastPosition' | 'firstAt' | 'lastAt'>;

/** A child summary (condensation, rolling/two-line upgrade input) as one item: its place when known, its facts when they were kept. */
export function summaryToItem(text: string, place?: SummaryItemPlace, facts?: SummarizeItem['facts']): SummarizeItem {
  return { kind: 'summary', role: 'summary', text, ...place, ...(facts ? { facts } : {}) };
}

/**
 * The canonical source text of a request: what "the output must be shorter than the
 * input" and "never the source verbatim" compare against, and what the prompts embed.
 */
export function itemsToSourceText(items: readonly SummarizeItem[]): string {
  return items.map((i) => `${i.role}: ${i.text}`).join('\n\n');
}

export type SegmentKind = 'said' | 'thinking' | 'tool_use' | 'tool_result' | 'tool_error';
export interface ItemSegment {
  kind: SegmentKind;
  lines: string[];
}

/**
 * Splits an item's text back into blocks using the markers items.ts writes: a marked
 * line opens a block that runs until the next marked line. Unmarked leading text is
 * what the person or the agent said.
 */
export function itemSegments(text: string): ItemSegment[] {
  const out: ItemSegment[] = [];
  let cur: ItemSegment = { kind: 'said', lines: [] };
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    // Every marker opens with '[': other lines skip the four prefix checks.
    if (line.charCodeAt(0) === 91) {
      let opens: SegmentKind | null = null;
      if (line.startsWith(ITEM_MARKERS.toolError)) [line, opens] = [line.slice(ITEM_MARKERS.toolError.length), 'tool_error'];
      else if (line.startsWith(ITEM_MARKERS.toolResult)) [line, opens] = [line.slice(ITEM_MARKERS.toolResult.length), 'tool_result'];
      else if (line.startsWith(ITEM_MARKERS.thinking)) [line, opens] = [line.slice(ITEM_MARKERS.thinking.length), 'thinking'];
      else if (line.startsWith(ITEM_MARKERS.toolUse)) {
        // A tool_use is one line (its input is JSON): what follows is said again.
        cur = openSegment(out, cur, 'tool_use');
        cur.lines.push(line);
        cur = openSegment(out, cur, 'said');
        continue;
      }
      if (opens) cur = openSegment(out, cur, opens);
    }
    // Both closing markers end with ']': other lines skip the two suffix checks.
    const closes = line.charCodeAt(line.length - 1) === 93 && (line.endsWith(ITEM_MARKERS.endThinking) || line.endsWith(ITEM_MARKERS.endToolResult));
    if (closes) line = line.slice(0, line.lastIndexOf('[/')).trim();
    const kept = line.trim();
    if (kept.length > 0) cur.lines.push(kept);
    if (closes) cur = openSegment(out, cur, 'said');
  }
  if (keepSegment(cur)) out.push(cur);
  return out;
}

/** An empty tool result is still a result: results pair with calls in order. */
function keepSegment(s: ItemSegment): boolean {
  return s.lines.length > 0 || s.kind === 'tool_result' || s.kind === 'tool_error';
}

/** Closes `cur` (kept when it holds anything) and returns the new segment of `kind`. */
function openSegment(out: ItemSegment[], cur: ItemSegment, kind: SegmentKind): ItemSegment {
  if (keepSegment(cur)) out.push(cur);
  return { kind, lines: [] };
}
