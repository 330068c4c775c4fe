/**
 * Claude Code session JSONL (~/.claude/projects/<project>/<session>.jsonl).
 *
 * Facts this importer relies on (see test/fixtures/README.md and docs/importers.md):
 * - One API message is written as several lines (one per content block) sharing
 *   `message.id`: they are grouped into one assistant turn.
 * - Threading is uuid / parentUuid; a compact_boundary has parentUuid null and links
 *   back with logicalParentUuid. Records are ordered parent-before-child, ties in
 *   file order (line order is not always tree order).
 * - Noise (progress, file-history-snapshot, queue-operation, attachment,
 *   permission-mode, last-prompt, isMeta user lines, system bookkeeping records) is
 *   skipped and counted in the session's metadata.skipped.
 * - compact_boundary + the next isCompactSummary user record = an external compaction;
 *   the summary record is not a turn.
 * - `{"type":"summary"}` records are titles: of this session when their leafUuid is one
 *   of its records, otherwise (summaries of earlier sessions) kept in metadata.summaries.
 * - isSidechain lines are subagent turns: in a session file they become child
 *   sessions (one per agent); an agent-*.jsonl file whose lines are all sidechain is
 *   itself the (child) session.
 * - Each assistant message is one model call; its `message.usage` is repeated on every
 *   record of the message, streaming stubs first: the earlier records carry the final
 *   input and cache figures but a partial `output_tokens`, the last record (in file
 *   order) the final one (checked on every fixture: for all 152 messages of
 *   spotter__258c7280 the last record has the largest output_tokens). So the call's usage
 *   and timestamp are the last record's.
 * - A user record holding only tool_result blocks stays a 'user' turn (Anthropic
 *   shape); consecutive such records answering the same assistant turn (parallel tool
 *   calls) are merged into one turn, as the API receives them.
 */
import { z } from 'zod';
import type { ContentBlock } from '../../shared/model/turn.js';
import { anthropicBlocks } from './blocks.js';
import { ImportError, parseRecord } from './errors.js';
import { firstRequestTitle, type UserText } from './claude-code-title.js';
import { anthropicUsage } from './usage.js';
import { baseTitle, type ImportedCallUsage, type ImportedExternalCompaction, type ImportedSessionTurn, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const ContentSchema = z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]);

/** Fields every record may carry; all optional except `type`. */
const RecordSchema = z.looseObject({
  type: z.string(),
  subtype: z.string().optional(),
  uuid: z.string().nullish(),
  parentUuid: z.string().nullish(),
  logicalParentUuid: z.string().nullish(),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  agentId: z.string().optional(),
  sessionId: z.string().optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  version: z.string().optional(),
  gitBranch: z.string().optional(),
  summary: z.string().optional(),
  leafUuid: z.string().optional(),
  compactMetadata: z.looseObject({ trigger: z.string().optional(), preTokens: z.number().optional() }).optional(),
});
type CcRecord = z.infer<typeof RecordSchema>;

/** user / assistant records must carry a message with content. */
const MessageRecordSchema = z.looseObject({
  message: z.looseObject({
    id: z.string().optional(),
    role: z.string().optional(),
    model: z.string().optional(),
    content: ContentSchema,
  }),
});
type CcMessage = z.infer<typeof MessageRecordSchema>['message'];

type NodeKind = 'user' | 'assistant' | 'boundary' | 'noise';

interface RecordNode {
  line: number;
  uuid: string | null;
  /** parentUuid, or logicalParentUuid across a compact boundary. */
  parent: string | null;
  kind: NodeKind;
  /** What a noise node is, for metadata.skipped. */
  noiseLabel?: string;
  sidechain: boolean;
  agentId: string | null;
  rec: CcRecord;
  message?: CcMessage;
  /** An isMeta user record's text (its start), for the title rule: a local-command caveat. */
  metaText?: string;
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC; matching it is the point
const ANSI = /\u001b\[[0-9;]*m/;

function classify(rec: CcRecord): { kind: NodeKind; noiseLabel?: string } {
  switch (rec.type) {
    case 'user':
      return rec.isMeta ? { kind: 'noise', noiseLabel: 'user:isMeta' } : { kind: 'user' };
    case 'assistant':
      return { kind: 'assistant' };
    case 'system': {
      if (rec.subtype === 'compact_boundary') return { kind: 'boundary' };
      // System records are Claude Code's own bookkeeping (hook summaries, durations,
      // recaps, local command echoes); none is sent to the model.
      const ansi = typeof rec.content === 'string' && ANSI.test(rec.content);
      return { kind: 'noise', noiseLabel: ansi ? 'system:ansi' : `system:${rec.subtype ?? 'other'}` };
    }
    default:
      return { kind: 'noise', noiseLabel: rec.type };
  }
}

/** Parent before child, ties in file order; records whose parent is absent count as roots. */
function treeOrder(nodes: RecordNode[]): RecordNode[] {
  const known = new Set<string>();
  for (const n of nodes) if (n.uuid) known.add(n.uuid);
  const emitted = new Set<string>();
  const waiting = new Map<string, RecordNode[]>();
  const out: RecordNode[] = [];
  const emit = (first: RecordNode): void => {
    const stack = [first];
    while (stack.length > 0) {
      const n = stack.pop()!;
      out.push(n);
      if (!n.uuid) continue;
      emitted.add(n.uuid);
      const kids = waiting.get(n.uuid);
      if (kids) {
        waiting.delete(n.uuid);
        for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      }
    }
  };
  for (const n of nodes) {
    if (!n.parent || !known.has(n.parent) || emitted.has(n.parent) || n.parent === n.uuid) emit(n);
    else {
      const list = waiting.get(n.parent);
      if (list) list.push(n);
      else waiting.set(n.parent, [n]);
    }
  }
  // A parent cycle (never seen, but cheap to survive): keep what is left in file order.
  if (waiting.size > 0) {
    const rest = [...waiting.values()].flat().sort((a, b) => a.line - b.line);
    for (const n of rest) if (!n.uuid || !emitted.has(n.uuid)) emit(n);
  }
  return out;
}

/** The start of an isMeta user record's text (only the title rule reads it). */
function metaTextOf(value: unknown): string {
  const message = (value as { message?: { content?: unknown } }).message;
  const content = message?.content;
  if (typeof content === 'string') return content.slice(0, 400);
  if (Array.isArray(content)) {
    const first = content.find((b): b is { text: string } => b !== null && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string');
    return first ? first.text.slice(0, 400) : '';
  }
  return '';
}

function textOf(content: CcMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

interface BuiltSession {
  turns: ImportedSessionTurn[];
  externalCompactions: ImportedExternalCompaction[];
  skipped: Record<string, number>;
  /** The session's first real request as a title (claude-code-title.ts), or null. */
  requestTitle: string | null;
  models: string[];
}

/** How many user messages the title rule looks at: the first request is near the start. */
const TITLE_LOOKAHEAD = 200;

function buildTurns(nodes: RecordNode[], file: string): BuiltSession {
  const turns: ImportedSessionTurn[] = [];
  const skipped: Record<string, number> = {};
  const byMessageId = new Map<string, number>();
  /** turn index -> file line of the record whose usage the turn's call holds (the latest). */
  const usageLine = new Map<number, number>();
  /** tool_use id -> index of the assistant turn holding it (merging parallel results). */
  const toolUseTurn = new Map<string, number>();
  const compactions: ImportedExternalCompaction[] = [];
  const models = new Set<string>();
  let pendingBoundary: RecordNode | null = null;
  let spanStart = 0;
  const userTexts: UserText[] = [];

  const closeCompaction = (summaryText: string, boundary: RecordNode | null, summaryNode: RecordNode | null): void => {
    const meta = boundary?.rec.compactMetadata;
    compactions.push({
      trigger: meta?.trigger ?? 'unknown',
      preTokens: typeof meta?.preTokens === 'number' ? meta.preTokens : null,
      summaryText,
      firstPosition: spanStart,
      lastPosition: turns.length - 1,
      boundaryPosition: turns.length,
      sourceId: boundary?.uuid ?? summaryNode?.uuid ?? null,
      timestamp: boundary?.rec.timestamp ?? summaryNode?.rec.timestamp ?? null,
    });
    spanStart = turns.length;
  };

  for (const node of nodes) {
    switch (node.kind) {
      case 'noise':
        skipped[node.noiseLabel!] = (skipped[node.noiseLabel!] ?? 0) + 1;
        if (node.metaText !== undefined && userTexts.length < TITLE_LOOKAHEAD) userTexts.push({ text: node.metaText, isMeta: true });
        break;
      case 'boundary':
        if (pendingBoundary) closeCompaction('', pendingBoundary, null);
        pendingBoundary = node;
        break;
      case 'assistant': {
        const msg = node.message!;
        const blocks = anthropicBlocks(msg.content);
        if (msg.model) models.add(msg.model);
        const existingIndex = msg.id ? byMessageId.get(msg.id) : undefined;
        const existing = existingIndex === undefined ? undefined : turns[existingIndex];
        const index = existingIndex ?? turns.length;
        const usage: ImportedCallUsage = { messageId: msg.id ?? null, model: msg.model ?? null, timestamp: node.rec.timestamp ?? null, ...anthropicUsage(msg.usage) };
        if (existing) {
          existing.blocks.push(...blocks);
          if (node.uuid) existing.sourceIds.push(node.uuid);
          // Tree order is not file order: the call's usage is the one written last.
          if (node.line > (usageLine.get(index) ?? -1)) {
            existing.usage = usage;
            usageLine.set(index, node.line);
          }
        } else {
          const turn: ImportedSessionTurn = { role: 'assistant', blocks, sourceIds: node.uuid ? [node.uuid] : [], timestamp: node.rec.timestamp ?? null, model: msg.model ?? null, agentId: node.agentId, usage };
          turns.push(turn);
          usageLine.set(index, node.line);
          if (msg.id) byMessageId.set(msg.id, index);
        }
        for (const b of blocks) if (b.type === 'tool_use') toolUseTurn.set(b.id, index);
        break;
      }
      case 'user': {
        const msg = node.message!;
        if (node.rec.isCompactSummary) {
          closeCompaction(textOf(msg.content), pendingBoundary, node);
          pendingBoundary = null;
          break;
        }
        const blocks = anthropicBlocks(msg.content);
        if (userTexts.length < TITLE_LOOKAHEAD) {
          const t = textOf(msg.content).trim();
          if (t.length > 0) userTexts.push({ text: t, isMeta: false });
        }
        if (mergeParallelResults(turns, blocks, toolUseTurn)) {
          if (node.uuid) turns[turns.length - 1].sourceIds.push(node.uuid);
          break;
        }
        turns.push({ role: 'user', blocks, sourceIds: node.uuid ? [node.uuid] : [], timestamp: node.rec.timestamp ?? null, model: null, agentId: node.agentId });
        break;
      }
      default: {
        const _exhaustive: never = node.kind;
        throw new ImportError(file, `internal: unknown record kind ${String(_exhaustive)}`);
      }
    }
  }
  // A boundary whose summary record never came (a session cut off while compacting).
  if (pendingBoundary) closeCompaction('', pendingBoundary, null);
  return { turns, externalCompactions: compactions, skipped, requestTitle: firstRequestTitle(userTexts), models: [...models] };
}

/**
 * Parallel tool calls come back as one user line per result; the API received them
 * as one message. Merge a results-only record into the previous turn when that turn
 * is results-only too and both answer the same assistant turn.
 */
function mergeParallelResults(turns: ImportedSessionTurn[], blocks: ContentBlock[], toolUseTurn: Map<string, number>): boolean {
  if (blocks.length === 0 || !blocks.every((b) => b.type === 'tool_result')) return false;
  const prev = turns[turns.length - 1];
  if (!prev || prev.role !== 'user' || prev.blocks.length === 0 || !prev.blocks.every((b) => b.type === 'tool_result')) return false;
  const owner = (b: ContentBlock): number | undefined => (b.type === 'tool_result' ? toolUseTurn.get(b.tool_use_id) : undefined);
  const prevOwner = owner(prev.blocks[0]);
  if (prevOwner === undefined || !blocks.every((b) => owner(b) === prevOwner)) return false;
  prev.blocks.push(...blocks);
  return true;
}

export interface ClaudeCodeOptions {
  /** Title for the session when the file has none (e.g. a subagent's .meta.json description). */
  titleHint?: string;
}

/** Reads a Claude Code JSONL file into a session with its sidechain child sessions. */
export function importClaudeCode(input: ParsedInput, ctx: ImporterContext, opts: ClaudeCodeOptions = {}): ImportedSession[] {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.fileName, 'expected Claude Code JSONL (one JSON record per line), got a single JSON document');
  const nodes: RecordNode[] = [];
  const titles: Array<{ summary: string; leafUuid: string | null }> = [];
  const facts: Record<string, string> = {};
  /** Task tool_use id -> the agent that ran it (`toolUseResult.agentId` on the answering record). */
  const taskAgents: Record<string, string> = {};
  for (const { line, value } of input.records) {
    const rec = parseRecord(RecordSchema, value, ctx.fileName, 'a Claude Code record (an object with a string "type")', line);
    if (rec.type === 'user' && !rec.isSidechain) collectTaskAgent(value, taskAgents);
    if (rec.type === 'summary') {
      if (typeof rec.summary === 'string') titles.push({ summary: rec.summary, leafUuid: rec.leafUuid ?? null });
      continue;
    }
    const { kind, noiseLabel } = classify(rec);
    let message: CcMessage | undefined;
    if (kind === 'user' || kind === 'assistant') {
      message = parseRecord(MessageRecordSchema, value, ctx.fileName, `a Claude Code ${kind} record with message.content`, line).message;
      for (const key of ['sessionId', 'cwd', 'version', 'gitBranch'] as const) {
        const v = rec[key];
        if (facts[key] === undefined && typeof v === 'string') facts[key] = v;
      }
    }
    nodes.push({
      line,
      uuid: rec.uuid ?? null,
      parent: rec.parentUuid ?? rec.logicalParentUuid ?? null,
      kind,
      noiseLabel,
      sidechain: rec.isSidechain === true,
      agentId: rec.agentId ?? null,
      // Noise keeps only what ordering needs: progress records are most of a file.
      rec: kind === 'noise' ? { type: rec.type } : rec,
      message,
      metaText: rec.type === 'user' && rec.isMeta ? metaTextOf(value) : undefined,
    });
  }
  if (nodes.length === 0 && titles.length === 0) throw new ImportError(ctx.fileName, 'no Claude Code records: expected JSONL lines with "type" user / assistant');

  const ordered = treeOrder(nodes);
  const conversational = ordered.filter((n) => n.kind !== 'noise');
  // An agent-*.jsonl file is all sidechain: it is itself the session.
  const agentFile = conversational.length > 0 && conversational.every((n) => n.sidechain);
  const mainNodes = agentFile ? ordered : ordered.filter((n) => !n.sidechain);
  const main = buildTurns(mainNodes, ctx.fileName);

  const uuids = new Set(nodes.map((n) => n.uuid).filter((u): u is string => u !== null));
  // A summary record titles the conversation whose leaf message it names (leafUuid), as
  // Claude Code's /resume list does; summaries of other sessions (old files start with
  // the summaries of the conversations they continue) are kept in metadata only.
  const ownTitles = titles.filter((t) => t.leafUuid !== null && uuids.has(t.leafUuid));
  const title = ownTitles.at(-1)?.summary ?? opts.titleHint ?? (main.requestTitle ?? titles.at(-1)?.summary ?? baseTitle(ctx.fileName));
  const agentId = agentFile ? (conversational.find((n) => n.agentId)?.agentId ?? null) : null;

  const session: ImportedSession = {
    title,
    format: 'claude-code',
    turns: main.turns,
    externalCompactions: main.externalCompactions,
    agentId,
    metadata: { ...facts, ...(Object.keys(taskAgents).length > 0 ? { taskAgents } : {}), skipped: main.skipped, models: main.models, ...(titles.length > 0 ? { summaries: [...new Set(titles.map((t) => t.summary))] } : {}) },
    children: agentFile ? [] : sidechainSessions(ordered, ctx),
  };
  return [session];
}

/** A Task call's answer names the agent it ran: `toolUseResult.agentId` beside the tool_result block. */
function collectTaskAgent(value: unknown, into: Record<string, string>): void {
  const v = value as { toolUseResult?: unknown; message?: { content?: unknown } };
  const result = v.toolUseResult;
  if (result === null || typeof result !== 'object' || typeof (result as { agentId?: unknown }).agentId !== 'string') return;
  const content = v.message?.content;
  if (!Array.isArray(content)) return;
  for (const b of content as Array<{ type?: unknown; tool_use_id?: unknown }>) {
    if (b?.type === 'tool_result' && typeof b.tool_use_id === 'string') into[b.tool_use_id] = (result as { agentId: string }).agentId;
  }
}

/** Inline sidechain lines grouped per agent (agentId, else the chain's root record). */
function sidechainSessions(ordered: RecordNode[], ctx: ImporterContext): ImportedSession[] {
  const byUuid = new Map<string, RecordNode>();
  for (const n of ordered) if (n.uuid) byUuid.set(n.uuid, n);
  const rootOf = new Map<RecordNode, string>();
  const findRoot = (n: RecordNode): string => {
    const seen: RecordNode[] = [];
    let cur = n;
    let root: string | undefined;
    for (;;) {
      const cached = rootOf.get(cur);
      if (cached) {
        root = cached;
        break;
      }
      seen.push(cur);
      const parent = cur.parent ? byUuid.get(cur.parent) : undefined;
      if (!parent || !parent.sidechain || seen.includes(parent)) {
        root = cur.uuid ?? `line-${cur.line}`;
        break;
      }
      cur = parent;
    }
    for (const s of seen) rootOf.set(s, root);
    return root;
  };
  const groups = new Map<string, RecordNode[]>();
  for (const n of ordered) {
    if (!n.sidechain) continue;
    const key = n.agentId ?? findRoot(n);
    const list = groups.get(key);
    if (list) list.push(n);
    else groups.set(key, [n]);
  }
  const children: ImportedSession[] = [];
  for (const [key, nodes] of groups) {
    if (!nodes.some((n) => n.kind !== 'noise')) continue;
    const agentId = nodes.find((n) => n.agentId)?.agentId ?? `sidechain-${key.slice(0, 8)}`;
    const built = buildTurns(
      nodes.map((n) => ({ ...n, agentId })),
      ctx.fileName,
    );
    children.push({
      title: built.requestTitle ?? `Subagent ${agentId}`,
      format: 'claude-code',
      turns: built.turns,
      externalCompactions: built.externalCompactions,
      agentId,
      metadata: { skipped: built.skipped, models: built.models, inline: true },
    });
  }
  return children;
}

export const claudeCodeImporter: Importer = {
  format: 'claude-code',
  import: (input, ctx) => importClaudeCode(input, ctx),
};
