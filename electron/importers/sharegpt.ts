/**
 * ShareGPT: `{ "conversations": [{ "from", "value" }] }`, one object, an array of them,
 * or JSONL with one per line; each object is a session.
 * from: human/user -> user, gpt/assistant/chatgpt/bard/model -> assistant, system ->
 * system; the function-calling variant's `function_call` (JSON {name, arguments})
 * becomes a tool_use and the following `observation` / `function_response` / `tool`
 * its tool_result (ShareGPT has no call ids: each answers the latest call).
 */
import { z } from 'zod';
import type { ImportedTurn } from '../../shared/model/turn.js';
import { parseToolArguments } from './blocks.js';
import { excerpt, ImportError, parseRecord } from './errors.js';
import { baseTitle, titleFrom, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const ConversationSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  conversations: z.array(z.looseObject({ from: z.string(), value: z.string() })).min(1),
});
const CONVERSATION = 'a ShareGPT conversation ({"conversations": [{"from", "value"}]})';

function conversationSession(value: unknown, ctx: ImporterContext, line?: number, index?: number): ImportedSession {
  const conv = parseRecord(ConversationSchema, value, ctx.fileName, index === undefined ? CONVERSATION : `${CONVERSATION} at [${index}]`, line);
  const prefix = line !== undefined ? `line-${line}:` : index !== undefined ? `[${index}]:` : '';
  const turns: ImportedTurn[] = [];
  let lastCallId = '';
  let prompt: string | null = null;
  conv.conversations.forEach((m, i) => {
    const sourceIds = [`${prefix}conversations[${i}]`];
    const from = m.from.toLowerCase();
    switch (from) {
      case 'human':
      case 'user':
        prompt ??= m.value;
        turns.push({ role: 'user', blocks: [{ type: 'text', text: m.value }], sourceIds });
        break;
      case 'gpt':
      case 'assistant':
      case 'chatgpt':
      case 'bard':
      case 'model':
      case 'bing':
        turns.push({ role: 'assistant', blocks: [{ type: 'text', text: m.value }], sourceIds });
        break;
      case 'system':
        turns.push({ role: 'system', blocks: [{ type: 'text', text: m.value }], sourceIds });
        break;
      case 'function_call': {
        const call = parseToolArguments(m.value);
        const name = call && typeof call === 'object' && typeof (call as { name?: unknown }).name === 'string' ? (call as { name: string }).name : 'function';
        const args = call && typeof call === 'object' && 'arguments' in call ? parseToolArguments((call as { arguments: unknown }).arguments) : call;
        lastCallId = `call-${i}`;
        turns.push({ role: 'assistant', blocks: [{ type: 'tool_use', id: lastCallId, name, input: args }], sourceIds });
        break;
      }
      case 'observation':
      case 'function_response':
      case 'tool':
        turns.push({ role: 'tool', blocks: [{ type: 'tool_result', tool_use_id: lastCallId, content: m.value, is_error: false }], sourceIds });
        break;
      default:
        throw new ImportError(ctx.fileName, `${prefix}conversations[${i}].from is ${excerpt(m.from)}: expected human, gpt, system, function_call or observation`, line);
    }
  });
  return { title: prompt ? titleFrom(prompt) : baseTitle(ctx.fileName), format: 'sharegpt', turns, externalCompactions: [], metadata: conv.id !== undefined ? { id: conv.id } : {} };
}

export function importShareGPT(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind === 'jsonl') {
    const out: ImportedSession[] = [];
    for (const { line, value } of input.records) out.push(conversationSession(value, ctx, line));
    return out;
  }
  if (Array.isArray(input.value)) {
    if (input.value.length === 0) throw new ImportError(ctx.fileName, `the array is empty: expected ${CONVERSATION}`);
    return input.value.map((v, i) => conversationSession(v, ctx, undefined, i));
  }
  return [conversationSession(input.value, ctx)];
}

export const sharegptImporter: Importer = { format: 'sharegpt', import: importShareGPT };
