/**
 * Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), written from
 * the public format (codex-rs protocol `RolloutLine { timestamp, type, payload }`):
 * - `session_meta` (id, cwd, cli_version, originator) -> session metadata;
 * - `response_item` is what the model saw and said: `message` (user / assistant /
 *   developer, content parts input_text / output_text), `reasoning` (summary texts),
 *   `function_call` / `custom_tool_call` / `local_shell_call` (call_id) and their
 *   `*_output` items;
 * - `compacted` { message } -> an external compaction (Codex's own summary);
 * - `event_msg` (UI echoes of the same items, token counts) and `turn_context`
 *   (model, cwd, policies per turn) are not turns: counted in metadata.skipped, the
 *   turn_context model is stamped on the following assistant turns.
 * The older layout without the {type, payload} wrapper (items at the top level, a
 * first meta line without "type", `record_type: "state"` lines) is read too.
 * Consecutive model-side items (reasoning, assistant message, calls) form one
 * assistant turn, as one Responses API output does. Streamed: turns are produced
 * while the file is read.
 */
import { z } from 'zod';
import type { ContentBlock, ImportedTurn, Role } from '../../shared/model/turn.js';
import { flattenToolResultContent, openaiImage, parseToolArguments } from './blocks.js';
import { excerpt, ImportError, parseRecord } from './errors.js';
import type { JsonlRecord } from './source.js';
import { baseTitle, titleFrom, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const LineSchema = z.looseObject({
  timestamp: z.string().optional(),
  type: z.string().optional(),
  record_type: z.string().optional(),
  payload: z.unknown().optional(),
});
const Part = z.looseObject({ type: z.string(), text: z.string().optional() });
const ItemSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message'), role: z.string(), content: z.union([z.string(), z.array(Part)]) }),
  z.looseObject({ type: z.literal('reasoning'), summary: z.array(Part).nullish(), content: z.array(Part).nullish() }),
  z.looseObject({ type: z.literal('function_call'), name: z.string(), arguments: z.unknown().optional(), call_id: z.string() }),
  z.looseObject({ type: z.literal('custom_tool_call'), name: z.string(), input: z.unknown().optional(), call_id: z.string() }),
  z.looseObject({ type: z.literal('local_shell_call'), call_id: z.string().nullish(), id: z.string().nullish(), action: z.unknown().optional() }),
  z.looseObject({ type: z.literal('function_call_output'), call_id: z.string(), output: z.unknown() }),
  z.looseObject({ type: z.literal('custom_tool_call_output'), call_id: z.string(), output: z.unknown() }),
  z.looseObject({ type: z.literal('web_search_call'), action: z.unknown().optional() }),
]);
type Item = z.infer<typeof ItemSchema>;
const ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'function_call_output', 'custom_tool_call_output', 'web_search_call']);

function partsToBlocks(content: string | Array<z.infer<typeof Part>>): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const out: ContentBlock[] = [];
  for (const p of content) {
    if (typeof p.text === 'string') out.push({ type: 'text', text: p.text });
    else if (p.type === 'input_image') out.push(openaiImage({ image_url: p.image_url }));
  }
  return out;
}

/** Tool output as the model read it; `{content, success}` objects (newer CLIs) unwrap. */
function outputText(output: unknown): { text: string; isError: boolean } {
  if (typeof output === 'string') return { text: output, isError: false };
  const o = output as { content?: unknown; success?: unknown } | null;
  if (o && typeof o === 'object' && 'content' in o) return { text: flattenToolResultContent(o.content), isError: o.success === false };
  return { text: flattenToolResultContent(output), isError: false };
}

/** Codex adds its environment and instructions as user messages; they are not the prompt. */
function isContextMessage(text: string): boolean {
  return /^\s*<(environment_context|user_instructions|INSTRUCTIONS)>/i.test(text) || /^\s*# AGENTS\.md instructions/.test(text);
}

type CodexLine = z.infer<typeof LineSchema>;

/** What one rollout line is, whichever layout it was written in. */
type LineKind =
  | { kind: 'item'; value: unknown }
  | { kind: 'meta'; fields: Record<string, string> }
  | { kind: 'turn-context'; model: string | null }
  | { kind: 'compacted'; message: string }
  | { kind: 'skip'; label: string };

/** The current layout: `{timestamp, type, payload}`, the item inside `response_item`. */
function wrappedLine(rec: CodexLine, type: string): LineKind {
  switch (type) {
    case 'response_item':
      return { kind: 'item', value: rec.payload };
    case 'session_meta': {
      const p = rec.payload as Record<string, unknown>;
      const fields: Record<string, string> = {};
      for (const key of ['id', 'cwd', 'cli_version', 'originator', 'model_provider']) if (p && typeof p[key] === 'string') fields[key] = p[key];
      return { kind: 'meta', fields };
    }
    case 'turn_context': {
      const p = rec.payload as { model?: unknown };
      return { kind: 'turn-context', model: p && typeof p.model === 'string' ? p.model : null };
    }
    case 'compacted': {
      const p = rec.payload as { message?: unknown };
      return { kind: 'compacted', message: typeof p?.message === 'string' ? p.message : '' };
    }
    case 'event_msg': {
      const t = (rec.payload as { type?: unknown } | null)?.type;
      return { kind: 'skip', label: `event_msg:${typeof t === 'string' ? t : 'other'}` };
    }
    default:
      return { kind: 'skip', label: type };
  }
}

/** The older layout: items at the top level, a first meta line without "type", `record_type: "state"` lines. */
function legacyLine(rec: CodexLine, value: unknown, line: number): LineKind {
  if (rec.type !== undefined && ITEM_TYPES.has(rec.type)) return { kind: 'item', value };
  if (rec.record_type) return { kind: 'skip', label: `record_type:${rec.record_type}` };
  if (line <= 1 && typeof (value as { id?: unknown }).id === 'string') return { kind: 'meta', fields: { id: (value as { id: string }).id } };
  return { kind: 'skip', label: rec.type ?? 'untyped' };
}

/**
 * Turns from items: consecutive model-side items gather into one assistant turn, which
 * is yielded before the next user, system or tool turn (or a compaction).
 */
class TurnGatherer {
  position = 0;
  model: string | null = null;
  private titled = false;
  private pending: ImportedTurn | null = null;

  /** `onFirstPrompt`: the user's first real prompt (Codex's context messages are not), for the title. */
  constructor(
    private readonly fileName: string,
    private readonly onFirstPrompt: (text: string) => void,
  ) {}

  *flush(): Generator<ImportedTurn> {
    if (this.pending) {
      yield this.pending;
      this.position++;
      this.pending = null;
    }
  }

  private assistantTurn(line: number, timestamp: string | null): ImportedTurn {
    if (!this.pending) this.pending = { role: 'assistant', blocks: [], sourceIds: [], timestamp, model: this.model };
    this.pending.sourceIds.push(`line-${line}`);
    return this.pending;
  }

  private *own(turn: ImportedTurn): Generator<ImportedTurn> {
    yield* this.flush();
    yield turn;
    this.position++;
  }

  *item(item: Item, line: number, timestamp: string | null): Generator<ImportedTurn> {
    switch (item.type) {
      case 'message': {
        const role: Role = item.role === 'assistant' ? 'assistant' : item.role === 'user' ? 'user' : 'system';
        const blocks = partsToBlocks(item.content);
        if (role === 'assistant') {
          this.assistantTurn(line, timestamp).blocks.push(...blocks);
          return;
        }
        if (role === 'user' && !this.titled) {
          const text = blocks.find((b) => b.type === 'text');
          if (text && text.type === 'text' && !isContextMessage(text.text)) {
            this.onFirstPrompt(text.text);
            this.titled = true;
          }
        }
        yield* this.own({ role, blocks, sourceIds: [`line-${line}`], timestamp, model: null });
        return;
      }
      case 'reasoning': {
        const texts = [...(item.summary ?? []), ...(item.content ?? [])].map((p) => p.text ?? '').filter((t) => t.length > 0);
        this.assistantTurn(line, timestamp).blocks.push({ type: 'thinking', thinking: texts.join('\n\n') });
        return;
      }
      case 'function_call':
        this.assistantTurn(line, timestamp).blocks.push({ type: 'tool_use', id: item.call_id, name: item.name, input: parseToolArguments(item.arguments) });
        return;
      case 'custom_tool_call':
        this.assistantTurn(line, timestamp).blocks.push({ type: 'tool_use', id: item.call_id, name: item.name, input: item.input ?? '' });
        return;
      case 'local_shell_call':
        this.assistantTurn(line, timestamp).blocks.push({ type: 'tool_use', id: item.call_id ?? item.id ?? `line-${line}`, name: 'local_shell', input: item.action ?? {} });
        return;
      case 'web_search_call':
        this.assistantTurn(line, timestamp).blocks.push({ type: 'tool_use', id: `line-${line}`, name: 'web_search', input: item.action ?? {} });
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, isError } = outputText(item.output);
        yield* this.own({ role: 'tool', blocks: [{ type: 'tool_result', tool_use_id: item.call_id, content: text, is_error: isError }], sourceIds: [`line-${line}`], timestamp, model: null });
        return;
      }
      default: {
        const _exhaustive: never = item;
        throw new ImportError(this.fileName, `unhandled Codex item ${excerpt(JSON.stringify(_exhaustive))}`, line);
      }
    }
  }
}

function streamSession(records: Iterable<JsonlRecord>, ctx: ImporterContext): ImportedSession {
  const skipped: Record<string, number> = {};
  const metadata: Record<string, unknown> = { skipped };
  const session: ImportedSession = { title: baseTitle(ctx.fileName), format: 'codex', turns: [], externalCompactions: [], metadata };
  const skip = (label: string): void => {
    skipped[label] = (skipped[label] ?? 0) + 1;
  };

  session.turns = (function* (): Generator<ImportedTurn> {
    const turns = new TurnGatherer(ctx.fileName, (prompt) => {
      session.title = titleFrom(prompt);
    });
    let spanStart = 0;
    for (const { line, value } of records) {
      const rec = parseRecord(LineSchema, value, ctx.fileName, 'a Codex rollout line ({"timestamp", "type", "payload"})', line);
      const timestamp = rec.timestamp ?? null;
      const kind = rec.payload !== undefined && rec.type !== undefined && !ITEM_TYPES.has(rec.type) ? wrappedLine(rec, rec.type) : legacyLine(rec, value, line);
      switch (kind.kind) {
        case 'meta':
          Object.assign(metadata, kind.fields);
          continue;
        case 'turn-context':
          if (kind.model !== null) turns.model = kind.model;
          skip('turn_context');
          continue;
        case 'compacted':
          yield* turns.flush();
          session.externalCompactions.push({
            trigger: 'unknown',
            preTokens: null,
            summaryText: kind.message,
            firstPosition: spanStart,
            lastPosition: turns.position - 1,
            boundaryPosition: turns.position,
            sourceId: `line-${line}`,
            timestamp,
          });
          spanStart = turns.position;
          continue;
        case 'skip':
          skip(kind.label);
          continue;
        case 'item':
          break;
        default: {
          const _exhaustive: never = kind;
          return _exhaustive;
        }
      }
      const itemType = (kind.value as { type?: unknown } | null)?.type;
      if (typeof itemType !== 'string' || !ITEM_TYPES.has(itemType)) {
        skip(`response_item:${typeof itemType === 'string' ? itemType : 'untyped'}`);
        continue;
      }
      yield* turns.item(parseRecord(ItemSchema, kind.value, ctx.fileName, `a Codex ${itemType} item`, line), line, timestamp);
    }
    yield* turns.flush();
  })();
  return session;
}

export function importCodex(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.fileName, 'expected a Codex rollout (JSONL, one {"timestamp", "type", "payload"} per line), got a single JSON document');
  return [streamSession(input.records, ctx)];
}

export const codexImporter: Importer = { format: 'codex', import: importCodex };
