/** `search <query>`: full-text search over every turn (FTS5). */
import { searchTurns } from '../../store/turns.js';
import { formatTable, intOption, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'search',
  summary: 'Full-text search over turn text in every session',
  usage: 'search <query...> [--limit N] [--db PATH] [--json]',
  description: 'Words are matched as whole tokens (all must occur); FTS syntax in the query is not interpreted.',
  options: {
    limit: { type: 'string', valueName: 'N', description: 'at most N hits (default 50)' },
  },
  minPositionals: 1,
  run(ctx) {
    const query = ctx.positionals.join(' ');
    const hits = searchTurns(ctx.openDb(), query, intOption(ctx, 'limit', 50));
    if (ctx.jsonMode) {
      ctx.json({ query, hits });
      return 0;
    }
    if (hits.length === 0) {
      ctx.out(`No turns match "${query}".`);
      return 0;
    }
    for (const line of formatTable(hits, [
      { header: 'SESSION', value: (h) => h.sessionId },
      { header: 'POS', value: (h) => h.position },
      { header: 'ROLE', value: (h) => h.role },
      { header: 'MATCH', value: (h) => h.snippet, maxWidth: 120 },
    ])) ctx.out(line);
    return 0;
  },
};
