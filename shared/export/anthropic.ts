/**
 * `anthropic`: a Messages API request body `{ system, messages }` with content blocks.
 * The replay already alternates user/assistant, starts with the user, puts tool results
 * first and right after their calls, and has unique pattern-safe tool ids, so this is a
 * block-by-block mapping:
 * - system messages -> `system` (their text joined by blank lines; omitted when none);
 * - user and tool messages -> `role: 'user'`, assistant -> `role: 'assistant'`;
 * - text -> text; tool_use -> tool_use (`input` must be an object: anything else is
 *   wrapped as `{ "value": … }`); tool_result -> tool_result (`is_error` only when true);
 * - thinking is left out: the API rejects thinking blocks without the signature a
 *   transcript does not keep, and ignores earlier turns' thinking anyway;
 * - image placeholders -> their `[image: …]` text (the bytes were never kept).
 */
import type { ContentBlock } from '../model/turn.js';
import type { ReplayMessage } from '../contract.js';
import { exportFileName, type ExportFile, type ExportInput } from './types.js';

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: true };

export interface AnthropicRequest {
  system?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: AnthropicBlock[] }>;
}

function toBlock(b: ContentBlock): AnthropicBlock | null {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'thinking':
      return null;
    case 'tool_use': {
      const isObject = typeof b.input === 'object' && b.input !== null && !Array.isArray(b.input);
      return { type: 'tool_use', id: b.id, name: b.name, input: isObject ? (b.input as Record<string, unknown>) : { value: b.input ?? null } };
    }
    case 'tool_result':
      return b.is_error ? { type: 'tool_result', tool_use_id: b.tool_use_id, content: b.content, is_error: true } : { type: 'tool_result', tool_use_id: b.tool_use_id, content: b.content };
    case 'image':
      return { type: 'text', text: `[image: ${b.mediaType}, ${b.sizeBytes} bytes]` };
    default: {
      const _exhaustive: never = b;
      return _exhaustive;
    }
  }
}

export function toAnthropicRequest(messages: readonly ReplayMessage[]): AnthropicRequest {
  const system: string[] = [];
  const out: AnthropicRequest['messages'] = [];
  for (const m of messages) {
    if (m.role === 'system') {
      for (const b of m.blocks) if (b.type === 'text') system.push(b.text);
      continue;
    }
    const content = m.blocks.map(toBlock).filter((b): b is AnthropicBlock => b !== null);
    out.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content });
  }
  return system.length > 0 ? { system: system.join('\n\n'), messages: out } : { messages: out };
}

export function exportAnthropic(input: ExportInput): ExportFile {
  return { fileName: exportFileName(input, 'anthropic.json'), mimeType: 'application/json', content: `${JSON.stringify(toAnthropicRequest(input.replay.messages), null, 2)}\n` };
}
