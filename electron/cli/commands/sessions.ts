/** `sessions`: list what the store holds. */
import { listSessions } from '../../store/sessions.js';
import { sessionInfoOf } from '../../store/sessions.js';
import { formatTable, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'sessions',
  summary: 'List imported sessions (child sessions are subagents of their parent)',
  usage: 'sessions [--db PATH] [--json]',
  options: {},
  maxPositionals: 0,
  run(ctx) {
    const sessions = listSessions(ctx.openDb());
    if (ctx.jsonMode) {
      ctx.json({ sessions: sessions.map(sessionInfoOf) });
      return 0;
    }
    if (sessions.length === 0) {
      ctx.out(`No sessions in ${ctx.dbPath}. Import one with: compaction-studio import <file>`);
      return 0;
    }
    for (const line of formatTable(sessions, [
      { header: 'ID', value: (s) => s.id },
      { header: 'PARENT', value: (s) => (s.parentSessionId === null ? '-' : String(s.parentSessionId)), align: 'right' },
      { header: 'FORMAT', value: (s) => s.format },
      { header: 'TURNS', value: (s) => s.turns },
      { header: 'TOKENS', value: (s) => s.tokens },
      { header: 'TOOL CALLS', value: (s) => s.toolCalls },
      { header: 'COMPACTIONS', value: (s) => s.externalCompactions },
      { header: 'IMPORTED', value: (s) => s.createdAt.slice(0, 16).replace('T', ' ') },
      { header: 'TITLE', value: (s) => s.title, maxWidth: 70 },
    ])) ctx.out(line);
    return 0;
  },
};
