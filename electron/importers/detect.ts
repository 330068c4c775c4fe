/**
 * Format auto-detection from the file extension and a peek at the content (the first
 * JSONL record, or the parsed document's shape). `--format` skips all of this.
 */
import { isTauBenchRecord } from './tau-bench-shape.js';
import { FORMATS, type FormatName } from './types.js';

type Obj = Record<string, unknown>;
function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const CLAUDE_CODE_TYPES = new Set(['summary', 'file-history-snapshot', 'queue-operation', 'permission-mode', 'last-prompt', 'progress', 'attachment', 'user', 'assistant', 'system']);
const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'image', 'document']);

/** A `{messages}` body is Anthropic's when it has a top-level system or Anthropic-only blocks. */
function looksAnthropic(body: Obj): boolean {
  if (typeof body.system === 'string' || Array.isArray(body.system)) return true;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (!isObj(m)) continue;
    if (m.role === 'system' || m.role === 'tool' || m.tool_calls) return false;
    if (Array.isArray(m.content) && m.content.some((b) => isObj(b) && typeof b.type === 'string' && ANTHROPIC_BLOCKS.has(b.type))) return true;
  }
  return false;
}

function isOpenHandsEvent(v: unknown): boolean {
  return isObj(v) && (typeof v.action === 'string' || typeof v.observation === 'string') && ('source' in v || 'id' in v);
}

/** The format of one JSONL record (the file's first), or null. */
export function detectJsonlRecord(first: unknown): FormatName | null {
  if (!isObj(first)) return null;
  if (isTauBenchRecord(first)) return 'tau-bench';
  if (typeof first.type === 'string' && CODEX_TYPES.has(first.type) && 'payload' in first) return 'codex';
  // Codex before the {type, payload} wrapper: a meta line with id, timestamp and instructions.
  if (typeof first.id === 'string' && typeof first.timestamp === 'string' && 'instructions' in first) return 'codex';
  if (typeof first.type === 'string' && ('uuid' in first || 'sessionId' in first || 'leafUuid' in first || 'parentUuid' in first || (CLAUDE_CODE_TYPES.has(first.type) && !('role' in first)))) {
    if (first.type !== 'message') return 'claude-code';
  }
  if (Array.isArray(first.history)) return 'openhands';
  if (Array.isArray(first.conversations)) return 'sharegpt';
  if (Array.isArray(first.messages)) return looksAnthropic(first) ? 'anthropic' : 'openai';
  if (typeof first.role === 'string') return 'openai';
  if (isOpenHandsEvent(first)) return 'openhands';
  return null;
}

/** The format of a whole JSON document, or null. */
export function detectDocument(doc: unknown, fileName: string): FormatName | null {
  if (/\.traj$/i.test(fileName)) return 'swe-agent';
  if (Array.isArray(doc)) {
    const first = doc[0];
    if (!isObj(first)) return null;
    if (isTauBenchRecord(first)) return 'tau-bench';
    if (typeof first.role === 'string') return 'openai';
    if (Array.isArray(first.conversations)) return 'sharegpt';
    if (Array.isArray(first.messages)) return looksAnthropic(first) ? 'anthropic' : 'openai';
    if (isOpenHandsEvent(first)) return 'openhands';
    if (Array.isArray(first.history)) return 'openhands';
    return null;
  }
  if (!isObj(doc)) return null;
  if (isTauBenchRecord(doc)) return 'tau-bench';
  if (Array.isArray(doc.history)) {
    const h0 = doc.history[0];
    if (isOpenHandsEvent(h0)) return 'openhands';
    if (isObj(h0) && typeof h0.role === 'string') return 'swe-agent';
    return 'trajectory' in doc ? 'swe-agent' : 'openhands';
  }
  // An older SWE-agent file without `history`: steps of {action, observation, response}.
  if (Array.isArray(doc.trajectory) && isObj(doc.trajectory[0]) && typeof doc.trajectory[0].action === 'string' && 'observation' in doc.trajectory[0]) return 'swe-agent';
  if (Array.isArray(doc.conversations)) return 'sharegpt';
  if (Array.isArray(doc.messages)) return looksAnthropic(doc) ? 'anthropic' : 'openai';
  return null;
}

export function unknownFormatMessage(kind: 'jsonl' | 'document'): string {
  return `unknown format: ${kind === 'jsonl' ? 'the first JSONL record' : 'the JSON document'} matches none of ${FORMATS.join(', ')} (force one with --format)`;
}
