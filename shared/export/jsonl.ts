/**
 * `jsonl`: one replay message per line, in the canonical model (role, origin, merged
 * parts, blocks, tokens), so a line can be traced back to the turn or summary it shows.
 */
import { exportFileName, type ExportFile, type ExportInput } from './types.js';

export function exportJsonl(input: ExportInput): ExportFile {
  const lines = input.replay.messages.map((m) => JSON.stringify(m.parts ? { role: m.role, origin: m.origin, parts: m.parts, tokens: m.tokens, blocks: m.blocks } : { role: m.role, origin: m.origin, tokens: m.tokens, blocks: m.blocks }));
  return { fileName: exportFileName(input, 'jsonl'), mimeType: 'application/x-ndjson', content: lines.length > 0 ? `${lines.join('\n')}\n` : '' };
}
