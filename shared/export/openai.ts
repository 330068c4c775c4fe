/**
 * `openai`: a Chat Completions request body `{ "messages": [...] }` (also what the
 * openai importer reads back). Mapping from the replay's canonical blocks:
 * - system messages -> `{ role: 'system', content }`;
 * - an assistant message -> `{ role: 'assistant', content, tool_calls? }`: text joined by
 *   blank lines (null when there is none), each tool_use a function call whose
 *   `arguments` is the input as a JSON string;
 * - a user/tool message -> one `{ role: 'tool', tool_call_id, content }` per tool_result
 *   (the replay puts them first, right after their call), then one `{ role: 'user' }`
 *   with the remaining text, if any. Chat Completions has no error flag: an errored
 *   result's content is prefixed `[error] `.
 * - thinking is left out (Chat Completions takes no prior reasoning; the replay keeps a
 *   text block in every assistant message, so none becomes empty); image placeholders
 *   become their `[image: …]` text.
 */
import type { ContentBlock } from '../model/turn.js';
import { blockToText } from '../model/turn.js';
import type { ReplayMessage } from '../contract.js';
import { exportFileName, type ExportFile, type ExportInput } from './types.js';

export type OpenAiMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Text of the blocks that are plain content (text, image placeholders), joined by blank lines. */
function plainText(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b) => b.type === 'text' || b.type === 'image')
    .map((b) => blockToText(b))
    .join('\n\n');
}

export function toOpenAiMessages(messages: readonly ReplayMessage[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: plainText(m.blocks) });
        break;
      case 'assistant': {
        const calls = m.blocks.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : []));
        const content = plainText(m.blocks);
        out.push(calls.length > 0 ? { role: 'assistant', content: content.length > 0 ? content : null, tool_calls: calls } : { role: 'assistant', content });
        break;
      }
      case 'user':
      case 'tool': {
        for (const b of m.blocks) if (b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: b.is_error ? `[error] ${b.content}` : b.content });
        const content = plainText(m.blocks);
        if (content.length > 0) out.push({ role: 'user', content });
        break;
      }
      default: {
        const _exhaustive: never = m.role;
        return _exhaustive;
      }
    }
  }
  return out;
}

export function exportOpenAi(input: ExportInput): ExportFile {
  return { fileName: exportFileName(input, 'openai.json'), mimeType: 'application/json', content: `${JSON.stringify({ messages: toOpenAiMessages(input.replay.messages) }, null, 2)}\n` };
}
