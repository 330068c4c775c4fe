/**
 * Content-block mapping shared by several importers: Anthropic-shaped blocks
 * (Claude Code, Anthropic request bodies) and OpenAI-shaped chat messages
 * (OpenAI, SWE-agent function calling, OpenHands model responses).
 */
import { z } from 'zod';
import { stableJson, type ContentBlock, type ImageBlock, type ImportedTurn, type Role } from '../../shared/model/turn.js';

type Loose = Record<string, unknown>;

function asRecord(v: unknown): Loose | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : null;
}

/** Decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const len = data.length;
  if (len === 0) return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((len * 3) / 4) - padding);
}

/** An image kept as a placeholder: media type and byte size, never the bytes. */
export function anthropicImage(block: Loose): ImageBlock {
  const source = asRecord(block.source);
  const mediaType = typeof source?.media_type === 'string' ? source.media_type : source?.type === 'url' ? 'url' : 'unknown';
  const sizeBytes = typeof source?.data === 'string' ? base64Bytes(source.data) : 0;
  return { type: 'image', mediaType, sizeBytes };
}

/** An OpenAI image_url part (a data: URL carries its bytes inline). */
export function openaiImage(part: Loose): ImageBlock {
  const imageUrl = asRecord(part.image_url);
  const url = typeof imageUrl?.url === 'string' ? imageUrl.url : typeof part.image_url === 'string' ? part.image_url : '';
  const m = /^data:([^;,]+)(;base64)?,/.exec(url);
  if (m) return { type: 'image', mediaType: m[1], sizeBytes: m[2] ? base64Bytes(url.slice(m[0].length)) : url.length - m[0].length };
  return { type: 'image', mediaType: 'url', sizeBytes: 0 };
}

/**
 * A tool result's content as one string: text parts joined by newlines, images as
 * `[image: type, N bytes]`, Claude Code's `tool_reference` parts by name, anything
 * else as stable JSON (so nothing the model saw is silently dropped).
 */
export function flattenToolResultContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) return stableJson(content);
  const parts: string[] = [];
  for (const item of content) {
    const part = asRecord(item);
    if (!part) {
      parts.push(typeof item === 'string' ? item : stableJson(item));
      continue;
    }
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else if (part.type === 'image') {
      const img = anthropicImage(part);
      parts.push(`[image: ${img.mediaType}, ${img.sizeBytes} bytes]`);
    } else if (part.type === 'tool_reference' && typeof part.tool_name === 'string') parts.push(`[tool_reference: ${part.tool_name}]`);
    else parts.push(stableJson(part));
  }
  return parts.join('\n');
}

/**
 * Anthropic content (a string or a block array) as canonical blocks. Server tools
 * (web search) map to tool_use / tool_result like client tools; unknown block types
 * become text holding their JSON.
 */
export function anthropicBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const item of content) {
    const b = asRecord(item);
    if (!b) continue;
    switch (b.type) {
      case 'text':
        out.push({ type: 'text', text: typeof b.text === 'string' ? b.text : '' });
        break;
      case 'thinking':
        out.push({ type: 'thinking', thinking: typeof b.thinking === 'string' ? b.thinking : '' });
        break;
      case 'redacted_thinking':
        // Encrypted by the provider: nothing readable, kept so the turn shape stays true.
        out.push({ type: 'thinking', thinking: '' });
        break;
      case 'tool_use':
      case 'server_tool_use':
        out.push({ type: 'tool_use', id: String(b.id ?? ''), name: String(b.name ?? ''), input: b.input ?? {} });
        break;
      case 'tool_result':
        out.push({ type: 'tool_result', tool_use_id: String(b.tool_use_id ?? ''), content: flattenToolResultContent(b.content), is_error: b.is_error === true });
        break;
      case 'web_search_tool_result':
        out.push({ type: 'tool_result', tool_use_id: String(b.tool_use_id ?? ''), content: flattenToolResultContent(b.content), is_error: false });
        break;
      case 'image':
        out.push(anthropicImage(b));
        break;
      case 'document': {
        const source = asRecord(b.source);
        const media = typeof source?.media_type === 'string' ? source.media_type : 'unknown';
        const bytes = typeof source?.data === 'string' ? (source.type === 'base64' ? base64Bytes(source.data) : source.data.length) : 0;
        out.push({ type: 'text', text: `[document: ${media}, ${bytes} bytes]` });
        break;
      }
      default:
        out.push({ type: 'text', text: stableJson(b) });
    }
  }
  return out;
}

/** Tool-call arguments: parsed JSON when they parse, else the raw string (nothing is lost). */
export function parseToolArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

// ---------------------------------------------------------------- OpenAI chat messages

const OpenAIPart = z.looseObject({ type: z.string() });
const OpenAIToolCall = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

/** One chat-completions message, as loose as the real world needs and no looser. */
export const OpenAIMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(OpenAIPart), z.null()]).optional(),
  tool_calls: z.array(OpenAIToolCall).nullish(),
  /** Legacy single function call. */
  function_call: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }).nullish(),
  tool_call_id: z.string().nullish(),
  name: z.string().nullish(),
});
export type OpenAIMessage = z.infer<typeof OpenAIMessageSchema>;

function openaiContentBlocks(content: OpenAIMessage['content']): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!content) return [];
  const out: ContentBlock[] = [];
  for (const part of content) {
    if ((part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') out.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url' || part.type === 'input_image') out.push(openaiImage(part));
    else if (part.type === 'refusal' && typeof part.refusal === 'string') out.push({ type: 'text', text: part.refusal });
    else out.push({ type: 'text', text: stableJson(part) });
  }
  return out;
}

function openaiRole(role: OpenAIMessage['role']): Role {
  switch (role) {
    case 'system':
    case 'developer':
      return 'system';
    case 'user':
      return 'user';
    case 'assistant':
      return 'assistant';
    case 'tool':
    case 'function':
      return 'tool';
    default: {
      const _exhaustive: never = role;
      return _exhaustive;
    }
  }
}

/**
 * An OpenAI chat message as a turn: `tool_calls` become tool_use blocks (arguments
 * parsed), a `tool` message one tool_result answering `tool_call_id` (a legacy
 * `function` message answers by name).
 */
export function openaiTurn(msg: OpenAIMessage, sourceId: string, extra?: Partial<ImportedTurn>): ImportedTurn {
  const role = openaiRole(msg.role);
  let blocks: ContentBlock[];
  if (role === 'tool') {
    const text = typeof msg.content === 'string' ? msg.content : flattenToolResultContent(msg.content ?? '');
    blocks = [{ type: 'tool_result', tool_use_id: msg.tool_call_id ?? msg.name ?? '', content: text, is_error: false }];
  } else {
    blocks = openaiContentBlocks(msg.content);
    for (const call of msg.tool_calls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
    if (msg.function_call) blocks.push({ type: 'tool_use', id: msg.function_call.name, name: msg.function_call.name, input: parseToolArguments(msg.function_call.arguments) });
  }
  return { role, blocks, sourceIds: [sourceId], ...extra };
}
