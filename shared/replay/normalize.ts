/**
 * Turns the raw list of what a strategy shows the model (system turns, summaries,
 * original turns, synthetic glue) into a message list that is valid under BOTH the
 * OpenAI Chat Completions and the Anthropic Messages rules, so the replay can be sent
 * to either API and the exports are mechanical re-shapings of it.
 *
 * The canonical replay shape this produces (checked by validate.ts):
 * 1. System messages first, one per visible system turn. A system turn from the middle
 *    of a session is hoisted to the front: Anthropic only has a top-level `system`,
 *    and a system prompt is the stable prefix every strategy keeps.
 * 2. Then strict alternation of a user side (role 'user', or 'tool' when the message
 *    holds only tool results) and 'assistant', starting with the user side. Consecutive
 *    messages of one side are MERGED (their origins are kept in `parts`); a leading
 *    assistant message gets a synthetic user message before it.
 * 3. Every tool_use in assistant message i is answered by exactly one tool_result in
 *    message i+1, and those results come first in that message (both APIs want results
 *    right after the call; OpenAI splits them into `tool` messages).
 * 4. A tool_result whose tool_use is not in the directly preceding assistant message
 *    (its call was summarized away, dropped by a window, or the source was odd), and a
 *    tool_use that is never answered (the session ended mid-call, or the result was
 *    dropped), are CONVERTED to plain text blocks that keep their content, e.g.
 *    `[tool result for call_1 (Bash), its call is no longer in context]\n...`. Converting
 *    rather than dropping keeps the information and the token count honest, and it is
 *    applied the same way in every strategy.
 * 5. Tool-use ids are unique across the replay and match Anthropic's `^[a-zA-Z0-9_-]+$`:
 *    a repeated id (tau-bench reuses them) or one with other characters is renamed
 *    (`<id>_2`), together with its paired result.
 * 6. No empty content: whitespace-only text blocks and empty thinking blocks are dropped,
 *    a message left without blocks is dropped, and an assistant message holding only
 *    thinking gets that thinking as text (Chat Completions has no field for reasoning,
 *    so it would otherwise be an empty message).
 */
import type { ContentBlock, Role, TextBlock, ToolResultBlock, ToolUseBlock } from '../model/turn.js';
import { stableJson } from '../model/turn.js';
import type { ReplayMessage } from '../contract.js';

export type ReplayOrigin = ReplayMessage['origin'];

/** One thing the model is shown, before normalization. */
export interface ReplayCandidate {
  role: Role;
  origin: ReplayOrigin;
  blocks: ContentBlock[];
}

/** A normalized message without its token count (build.ts counts tokens last). */
export interface NormalizedMessage {
  role: ReplayMessage['role'];
  origin: ReplayOrigin;
  /** Every origin when several candidates were merged into this message. */
  parts?: ReplayOrigin[];
  blocks: ContentBlock[];
}

/** Text of the synthetic user message put before a conversation that starts with the assistant. */
export const LEADING_GLUE_TEXT = '[The conversation continues from an earlier point.]';

/** Anthropic's tool_use id pattern (OpenAI accepts any string). */
export const TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

type Side = 'user' | 'assistant';

interface Group {
  side: Side;
  origins: ReplayOrigin[];
  blocks: ContentBlock[];
}

const text = (t: string): TextBlock => ({ type: 'text', text: t });

function toolUseAsText(b: ToolUseBlock, why: string): TextBlock {
  return text(`[tool call ${b.name} (${b.id}), ${why}]\n${stableJson(b.input)}`);
}

function toolResultAsText(b: ToolResultBlock, toolName: string | undefined, why: string): TextBlock {
  const what = toolName ? `${b.tool_use_id} (${toolName})` : b.tool_use_id;
  return text(`[tool ${b.is_error ? 'error' : 'result'} for ${what}, ${why}]\n${b.content}`);
}

/** Drops empty content; moves blocks that cannot live on this side to text. */
function cleanBlocks(side: Side, blocks: readonly ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        if (b.text.trim().length > 0) out.push(b);
        break;
      case 'thinking':
        if (b.thinking.trim().length > 0) out.push(side === 'assistant' ? b : text(b.thinking));
        break;
      case 'tool_use':
        out.push(side === 'assistant' ? b : toolUseAsText(b, 'not made by the assistant'));
        break;
      case 'tool_result':
        out.push(side === 'user' ? b : toolResultAsText(b, undefined, 'not returned to the assistant'));
        break;
      case 'image':
        out.push(b);
        break;
      default: {
        const _exhaustive: never = b;
        return _exhaustive;
      }
    }
  }
  return out;
}

/** System content as text blocks (a system prompt is plain text in both APIs). */
function systemBlocks(blocks: readonly ContentBlock[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const b of cleanBlocks('user', blocks)) {
    if (b.type === 'text') out.push(b);
    else if (b.type === 'tool_result') out.push(toolResultAsText(b, undefined, 'found in a system message'));
    else if (b.type === 'image') out.push(text(`[image: ${b.mediaType}, ${b.sizeBytes} bytes]`));
    else out.push(b);
  }
  return out;
}

/** Makes ids unique and pattern-safe: the first valid occurrence keeps its id. */
class ToolIdAllocator {
  private readonly used = new Set<string>();

  allocate(original: string): string {
    const base = TOOL_ID_PATTERN.test(original) ? original : original.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
    let id = base;
    for (let k = 2; this.used.has(id); k++) id = `${base}_${k}`;
    this.used.add(id);
    return id;
  }
}

/**
 * Pairs each assistant group's tool_uses with the results in the next group, converts
 * the unpaired ones to text, renames ids, and puts paired results first.
 */
function pairAdjacentToolCalls(groups: Group[]): void {
  const ids = new ToolIdAllocator();
  // claimed[i]: the results in group i that answer a call in group i-1.
  const claimed: Array<Set<ContentBlock> | undefined> = new Array(groups.length);
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (g.side === 'user') {
      const mine = claimed[i];
      g.blocks = g.blocks.map((b) => (b.type === 'tool_result' && !mine?.has(b) ? toolResultAsText(b, undefined, 'its call is no longer in context') : b));
      continue;
    }
    const next = groups[i + 1];
    const available = next ? next.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result') : [];
    const taken = new Set<ToolResultBlock>();
    const pairedResults: ToolResultBlock[] = [];
    const seenInMessage = new Set<string>();
    g.blocks = g.blocks.map((b) => {
      if (b.type !== 'tool_use') return b;
      // A second call with the same id inside one message cannot be answered unambiguously.
      const result = seenInMessage.has(b.id) ? undefined : available.find((r) => r.tool_use_id === b.id && !taken.has(r));
      seenInMessage.add(b.id);
      if (!result) return toolUseAsText(b, 'no result follows it in context');
      taken.add(result);
      const id = ids.allocate(b.id);
      pairedResults.push(id === result.tool_use_id ? result : { ...result, tool_use_id: id });
      return id === b.id ? b : { ...b, id };
    });
    if (next) {
      // Paired results first (in call order), then everything else in its own order.
      const rest = next.blocks.filter((b) => !(b.type === 'tool_result' && taken.has(b)));
      next.blocks = [...pairedResults, ...rest];
      claimed[i + 1] = new Set<ContentBlock>(pairedResults);
    }
  }
}

/** Normalizes candidates into the canonical replay shape described in the file header. */
export function normalizeReplay(candidates: readonly ReplayCandidate[]): NormalizedMessage[] {
  const system: NormalizedMessage[] = [];
  const groups: Group[] = [];
  for (const c of candidates) {
    if (c.role === 'system') {
      const blocks = systemBlocks(c.blocks);
      if (blocks.length > 0) system.push({ role: 'system', origin: c.origin, blocks });
      continue;
    }
    const side: Side = c.role === 'assistant' ? 'assistant' : 'user';
    const blocks = cleanBlocks(side, c.blocks);
    if (blocks.length === 0) continue;
    const last = groups[groups.length - 1];
    if (last && last.side === side) {
      last.blocks.push(...blocks);
      last.origins.push(c.origin);
    } else {
      groups.push({ side, origins: [c.origin], blocks });
    }
  }
  if (groups.length > 0 && groups[0].side === 'assistant') {
    groups.unshift({ side: 'user', origins: [{ kind: 'synthetic' }], blocks: [text(LEADING_GLUE_TEXT)] });
  }
  pairAdjacentToolCalls(groups);

  const out: NormalizedMessage[] = [...system];
  for (const g of groups) {
    let blocks = g.blocks;
    if (g.side === 'assistant' && blocks.every((b) => b.type === 'thinking')) {
      blocks = blocks.map((b) => (b.type === 'thinking' ? text(`[thinking]\n${b.thinking}`) : b));
    }
    const role: ReplayMessage['role'] = g.side === 'assistant' ? 'assistant' : blocks.every((b) => b.type === 'tool_result') ? 'tool' : 'user';
    const msg: NormalizedMessage = { role, origin: g.origins[0], blocks };
    if (g.origins.length > 1) msg.parts = g.origins;
    out.push(msg);
  }
  return out;
}
