/**
 * `jsonl`: one replay message per line, in the canonical model (role, origin, merged
 * parts, blocks, tokens), so a line can be traced back to the turn or summary it shows.
 * When the variant's summarizer is known (the app and the CLI always pass it), a first line
 * `{"variant": {id, strategy, params, summarizer: {kind, model, promptVersion, prompts}}}`
 * (no `role`, so it is told apart from a message) says how its summaries were asked for.
 */
import { exportedSummarizer, exportFileName, type ExportFile, type ExportInput } from './types.js';

export function exportJsonl(input: ExportInput): ExportFile {
  const lines = input.replay.messages.map((m) => JSON.stringify(m.parts ? { role: m.role, origin: m.origin, parts: m.parts, tokens: m.tokens, blocks: m.blocks } : { role: m.role, origin: m.origin, tokens: m.tokens, blocks: m.blocks }));
  const summarizer = exportedSummarizer(input);
  if (summarizer && input.variant) lines.unshift(JSON.stringify({ variant: { id: input.variant.id, strategy: input.variant.strategy, params: input.variant.params, summarizer } }));
  return { fileName: exportFileName(input, 'jsonl'), mimeType: 'application/x-ndjson', content: lines.length > 0 ? `${lines.join('\n')}\n` : '' };
}
