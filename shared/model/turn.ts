/**
 * The canonical turn model. Every importer maps its source format into these
 * types; every planner, summarizer, replay and export reads only these.
 * Pure: no Node, DOM or Electron imports (enforced by test/node/layers.test.ts).
 */
import { z } from 'zod';

export const RoleSchema = z.enum(['system', 'user', 'assistant', 'tool']);
export type Role = z.infer<typeof RoleSchema>;

export const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
export const ThinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string() });
export const ToolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
/** Tool result content is flattened to text; images inside it become `[image: type, N bytes]`. */
export const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.string(),
  is_error: z.boolean(),
});
/** Images are kept as placeholders (media type and byte size), never the bytes. */
export const ImageBlockSchema = z.object({
  type: z.literal('image'),
  mediaType: z.string(),
  sizeBytes: z.number().int().nonnegative(),
});

export const ContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ThinkingBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ImageBlockSchema,
]);
export type TextBlock = z.infer<typeof TextBlockSchema>;
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;
export type ImageBlock = z.infer<typeof ImageBlockSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** A turn as an importer produces it, before the store gives it an id and counts. */
export interface ImportedTurn {
  role: Role;
  blocks: ContentBlock[];
  /** Ids of the source records this turn was built from (Claude Code uuids, event ids...). */
  sourceIds: string[];
  timestamp?: string | null;
  model?: string | null;
  /** Subagent / sidechain marker: the agent id when the turn belongs to one. */
  agentId?: string | null;
}

/** A stored turn as the planners see it: blocks plus precomputed counts. */
export interface Turn {
  id: number;
  sessionId: number;
  /** 0-based position in the session. */
  position: number;
  role: Role;
  blocks: ContentBlock[];
  charCount: number;
  tokenCount: number;
  timestamp: string | null;
  model: string | null;
  agentId: string | null;
  sourceIds: string[];
}

/**
 * The light form of a turn that planners need (no blocks): the renderer can hold
 * 100,000 of these cheaply and re-plan on every slider move.
 */
export interface TurnMeta {
  id: number;
  position: number;
  role: Role;
  charCount: number;
  tokenCount: number;
  /**
   * The smallest position of a turn holding a tool_use that this turn's tool_result
   * blocks answer (paired by the store, nearest preceding call for repeated ids);
   * this turn's own position when it answers nothing. A cut between positions b-1
   * and b is tool-cycle safe iff every turn at >= b has cycleStart >= b.
   */
  cycleStart: number;
}

/** Plain text of a block list, used for search, char counts and summarizers. */
export function blocksToText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) parts.push(blockToText(b));
  return parts.join('\n');
}

export function blockToText(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'thinking':
      return b.thinking;
    case 'tool_use':
      return `${b.name} ${stableJson(b.input)}`;
    case 'tool_result':
      return b.content;
    case 'image':
      return `[image: ${b.mediaType}, ${b.sizeBytes} bytes]`;
    default: {
      const _exhaustive: never = b;
      return _exhaustive;
    }
  }
}

/** JSON with sorted object keys: the same value always gives the same string (cache keys, hashes). */
export function stableJson(value: unknown): string {
  if (value === undefined) return 'null';
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(v as Record<string, unknown>).sort()) sorted[key] = (v as Record<string, unknown>)[key];
      return sorted;
    }
    return v;
  });
}

/** A tool_result paired with the tool_use it answers. */
export interface ToolCycle {
  usePosition: number;
  resultPosition: number;
  toolUseId: string;
  toolName: string;
  isError: boolean;
}

/**
 * THE pairing rule, one turn at a time (the importer's streaming writer feeds it turn by turn;
 * `pairToolCycles` feeds it a whole session): a tool_result answers the nearest preceding
 * tool_use of the same id (ids repeat inside some trajectories, e.g. tau-bench), and a turn
 * never answers its own calls. The state is the caller's: one pairer per session.
 */
export class ToolCyclePairer {
  private readonly lastUse = new Map<string, { position: number; name: string }>();

  /** The cycles this turn's results close, in block order; then its uses are registered. */
  turn(position: number, blocks: readonly ContentBlock[]): ToolCycle[] {
    const out: ToolCycle[] = [];
    for (const b of blocks) {
      if (b.type !== 'tool_result') continue;
      const use = this.lastUse.get(b.tool_use_id);
      if (use) out.push({ usePosition: use.position, resultPosition: position, toolUseId: b.tool_use_id, toolName: use.name, isError: b.is_error });
    }
    for (const b of blocks) if (b.type === 'tool_use') this.lastUse.set(b.id, { position, name: b.name });
    return out;
  }
}

/** Pairs tool_results with tool_uses over a whole session (ToolCyclePairer's rule): one entry per answered result. */
export function pairToolCycles(turns: readonly Pick<Turn, 'position' | 'blocks'>[]): ToolCycle[] {
  const pairer = new ToolCyclePairer();
  const out: ToolCycle[] = [];
  for (const t of turns) out.push(...pairer.turn(t.position, t.blocks));
  return out;
}

/** Turn metas with cycleStart filled from the pairing above. */
export function turnMetasOf(turns: readonly Pick<Turn, 'id' | 'position' | 'role' | 'charCount' | 'tokenCount' | 'blocks'>[]): TurnMeta[] {
  const metas: TurnMeta[] = turns.map((t) => ({ id: t.id, position: t.position, role: t.role, charCount: t.charCount, tokenCount: t.tokenCount, cycleStart: t.position }));
  const byPos = new Map<number, TurnMeta>();
  for (const m of metas) byPos.set(m.position, m);
  for (const c of pairToolCycles(turns)) {
    const m = byPos.get(c.resultPosition);
    if (m && c.usePosition < m.cycleStart) m.cycleStart = c.usePosition;
  }
  return metas;
}
