/** `search <query>`: full-text search over every turn and every variant's summaries (FTS5). */
import { searchSummaries, searchTurns } from '../../store/turns.js';
import { formatTable, intOption, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'search',
  summary: 'Full-text search over turn text and summary text in every session',
  usage: 'search <query...> [--limit N] [--db PATH] [--json]',
  description:
    'Words are matched as whole tokens (all must occur); FTS syntax in the query is not interpreted. Summary hits (every variant\'s pass and replay summaries, with the variant and the summary\'s kind) come after the turn hits: "did `dialyzer` survive?". --json: { query, hits (turns), summaryHits }.',
  options: {
    limit: { type: 'string', valueName: 'N', description: 'at most N hits of each kind (default 50)' },
  },
  minPositionals: 1,
  run(ctx) {
    const query = ctx.positionals.join(' ');
    const db = ctx.openDb();
    const limit = intOption(ctx, 'limit', 50);
    const hits = searchTurns(db, query, limit);
    const summaryHits = searchSummaries(db, query, limit);
    if (ctx.jsonMode) {
      ctx.json({ query, hits, summaryHits });
      return 0;
    }
    if (hits.length === 0) ctx.out(`No turns match "${query}".`);
    else
      for (const line of formatTable(hits, [
        { header: 'SESSION', value: (h) => h.sessionId },
        { header: 'POS', value: (h) => h.position },
        { header: 'ROLE', value: (h) => h.role },
        { header: 'MATCH', value: (h) => h.snippet, maxWidth: 120 },
      ])) ctx.out(line);
    ctx.out('');
    if (summaryHits.length === 0) ctx.out(`No summaries match "${query}".`);
    else
      for (const line of formatTable(summaryHits, [
        { header: 'SESSION', value: (h) => h.sessionId },
        { header: 'VARIANT', value: (h) => `#${h.variantId} ${h.variantName ?? h.strategy}` },
        { header: 'SUMMARY', value: (h) => `s${h.summaryId} ${h.kind} d${h.depth}${h.compacted ? ' (folded)' : ''}` },
        { header: 'TURNS', value: (h) => `${h.firstPosition}-${h.lastPosition}` },
        { header: 'FROM', value: (h) => (h.replayRunId !== null ? `replay #${h.replayRunId}` : 'pass') },
        { header: 'MATCH', value: (h) => h.snippet, maxWidth: 100 },
      ])) ctx.out(line);
    return 0;
  },
};
