/** `import <file|folder...>`: import transcripts into the store. */
import path from 'node:path';
import { importFiles, FORMATS, type ImportedSessionInfo } from '../../importers/import.js';
import { isTokenizerName, TOKENIZERS } from '../../tokenizer.js';
import { formatTable, stringOption, UsageError, type CliCommand } from '../framework.js';

/** The --json shape of one imported session (a stable shape scripts read). */
export function importJson(s: ImportedSessionInfo): Record<string, unknown> {
  return { id: s.id, title: s.title, format: s.format, turns: s.turns, tokens: s.tokens, toolCalls: s.toolCalls, externalCompactions: s.externalCompactions, duplicate: s.duplicate };
}

export const command: CliCommand = {
  name: 'import',
  summary: 'Import transcript files or folders (format auto-detected); re-imports are reported as duplicates',
  usage: 'import <file|folder...> [--format F] [--tokenizer T] [--db PATH] [--json]',
  description: [
    `Formats: ${FORMATS.join(', ')}.`,
    'Claude Code subagent files (agent-*.jsonl, <session>/subagents/) given with their',
    'session file, or found beside it, import as child sessions. All files are imported',
    'all or nothing: on any error nothing is left (a long import commits hidden chunks,',
    'removed again). A folder imports every transcript',
    'under it, recursively (a Claude Code project folder: every session with its subagents);',
    'files there of no known format are skipped.',
  ].join('\n'),
  options: {
    format: { type: 'string', valueName: 'F', description: `force a format (${FORMATS.join(', ')})` },
    tokenizer: { type: 'string', valueName: 'T', description: `token counting: ${TOKENIZERS.join(' or ')} (default o200k_base)` },
    'no-subagents': { type: 'boolean', description: 'do not pick up Claude Code subagent files found beside a session file' },
  },
  minPositionals: 1,
  run(ctx) {
    const tokenizer = stringOption(ctx, 'tokenizer');
    if (tokenizer !== undefined && !isTokenizerName(tokenizer)) throw new UsageError(`--tokenizer must be ${TOKENIZERS.join(' or ')}, got "${tokenizer}"`);
    const report = importFiles(ctx.openDb(), ctx.positionals.map((p) => path.resolve(ctx.cwd, p)), {
      format: stringOption(ctx, 'format'),
      tokenizer,
      discoverSubagents: ctx.options['no-subagents'] !== true,
    });
    if (ctx.jsonMode) {
      ctx.json({ sessions: report.sessions.map(importJson) });
      return 0;
    }
    const added = report.sessions.filter((s) => !s.duplicate).length;
    const dupes = report.sessions.length - added;
    ctx.out(`Imported ${added} session${added === 1 ? '' : 's'}${dupes > 0 ? `, ${dupes} already in the store (duplicate)` : ''} into ${ctx.dbPath}`);
    ctx.out('');
    for (const line of formatTable(report.sessions, [
      { header: 'ID', value: (s) => s.id },
      { header: 'FORMAT', value: (s) => s.format },
      { header: 'TURNS', value: (s) => s.turns },
      { header: 'TOKENS', value: (s) => s.tokens },
      { header: 'TOOL CALLS', value: (s) => s.toolCalls },
      { header: 'COMPACTIONS', value: (s) => s.externalCompactions },
      { header: 'STATUS', value: (s) => (s.duplicate ? 'duplicate' : 'new') },
      { header: 'TITLE', value: (s) => `${s.parentSessionId !== null ? '└ ' : ''}${s.title}`, maxWidth: 70 },
    ])) ctx.out(line);
    return 0;
  },
};
