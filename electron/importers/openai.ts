/**
 * OpenAI chat messages: a JSON array of messages, `{ "messages": [...] }`, an array
 * of such objects (one session each), or JSONL with one message per line (streamed:
 * the turns are produced while the file is read, never held all at once).
 * `tool_calls` -> tool_use blocks, `role: "tool"` -> a 'tool' turn with one
 * tool_result. An assistant message with its own OpenAI-style `usage` records the model
 * call that produced it (electron/importers/usage.ts). Repeated tool call ids are paired by the writer (nearest preceding call).
 */
import type { ImportedTurn } from '../../shared/model/turn.js';
import { OpenAIMessageSchema, openaiTurn, type OpenAIMessage } from './blocks.js';
import { ImportError, parseRecord } from './errors.js';
import type { JsonlRecord } from './source.js';
import { isTauBenchRecord } from './tau-bench-shape.js';
import { openaiMessageUsage } from './usage.js';
import { baseTitle, titleFrom, type ImportedSession, type ImportedSessionTurn, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const MESSAGE = 'an OpenAI chat message ({"role", "content", "tool_calls"?, "tool_call_id"?})';

function firstUserText(turn: ImportedTurn): string | null {
  if (turn.role !== 'user') return null;
  for (const b of turn.blocks) if (b.type === 'text' && b.text.trim().length > 0) return b.text;
  return null;
}

/** The canonical turn of one message, with the usage of its call when the message reports one. */
function messageTurn(msg: OpenAIMessage, sourceId: string): ImportedSessionTurn {
  const turn: ImportedSessionTurn = openaiTurn(msg, sourceId);
  const usage = openaiMessageUsage(msg);
  if (usage) turn.usage = usage;
  return turn;
}

/** A session over a message list already in memory. `where` names the list in errors. */
export function sessionFromMessages(messages: unknown[], ctx: ImporterContext, where: string, title?: string): ImportedSession {
  const turns: ImportedSessionTurn[] = [];
  let prompt: string | null = null;
  messages.forEach((m, i) => {
    const msg = parseRecord(OpenAIMessageSchema, m, ctx.fileName, `${MESSAGE} at ${where}[${i}]`);
    const turn = messageTurn(msg, `${where}[${i}]`);
    prompt ??= firstUserText(turn);
    turns.push(turn);
  });
  return { title: title ?? (prompt ? titleFrom(prompt) : baseTitle(ctx.fileName)), format: 'openai', turns, externalCompactions: [] };
}

function hasMessages(v: unknown): v is { messages: unknown[]; title?: unknown } {
  return v !== null && typeof v === 'object' && Array.isArray((v as { messages?: unknown }).messages);
}

/** JSONL of messages, streamed: the title is set from the first user text as it goes by. */
function streamedSession(records: Iterable<JsonlRecord>, ctx: ImporterContext): ImportedSession {
  const session: ImportedSession = { title: baseTitle(ctx.fileName), format: 'openai', turns: [], externalCompactions: [] };
  let titled = false;
  session.turns = (function* (): Generator<ImportedSessionTurn> {
    for (const { line, value } of records) {
      const msg = parseRecord(OpenAIMessageSchema, value, ctx.fileName, MESSAGE, line);
      const turn = messageTurn(msg, `line-${line}`);
      if (!titled) {
        const prompt = firstUserText(turn);
        if (prompt) {
          session.title = titleFrom(prompt);
          titled = true;
        }
      }
      yield turn;
    }
  })();
  return session;
}

/** tau-bench results ({task_id, reward, traj}) hold OpenAI messages but are their own format. */
function tauBenchMisuse(v: unknown, ctx: ImporterContext, line?: number): void {
  const first = Array.isArray(v) ? v[0] : v;
  if (isTauBenchRecord(first)) {
    throw new ImportError(ctx.fileName, 'this is a tau-bench results file ({task_id, reward, traj: [OpenAI messages]} records), not bare OpenAI messages: import it with --format tau-bench (or without --format: it is detected)', line);
  }
}

export function importOpenAI(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind === 'jsonl') {
    const first = input.records.peek();
    if (first) tauBenchMisuse(first.value, ctx, first.line);
    if (first && hasMessages(first.value)) {
      // JSONL of conversations: one session per line.
      const out: ImportedSession[] = [];
      for (const { line, value } of input.records) {
        if (!hasMessages(value)) throw new ImportError(ctx.fileName, 'expected an object with a "messages" array, like the first line', line);
        out.push(sessionFromMessages(value.messages, ctx, `line ${line} messages`, typeof value.title === 'string' ? value.title : undefined));
      }
      return out;
    }
    return [streamedSession(input.records, ctx)];
  }
  const doc = input.value;
  tauBenchMisuse(doc, ctx);
  if (Array.isArray(doc)) {
    if (doc.length > 0 && doc.every(hasMessages)) return doc.map((c, i) => sessionFromMessages(c.messages, ctx, `[${i}].messages`, typeof c.title === 'string' ? c.title : undefined));
    if (doc.length === 0) throw new ImportError(ctx.fileName, 'the message array is empty: expected at least one OpenAI chat message');
    return [sessionFromMessages(doc, ctx, '')];
  }
  if (hasMessages(doc)) {
    if (doc.messages.length === 0) throw new ImportError(ctx.fileName, '"messages" is empty: expected at least one OpenAI chat message');
    return [sessionFromMessages(doc.messages, ctx, 'messages', typeof doc.title === 'string' ? doc.title : undefined)];
  }
  throw new ImportError(ctx.fileName, 'expected OpenAI chat messages: an array of messages, {"messages": [...]}, or JSONL with one message per line');
}

export const openaiImporter: Importer = { format: 'openai', import: importOpenAI };
