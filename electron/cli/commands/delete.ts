/** `delete <session>`: the one explicit way turns leave the store (with the session's children and variants). */
import { childSessions, deleteSession } from '../../store/sessions.js';
import { requireSession, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'delete',
  summary: 'Delete a session with its child sessions, variants and summaries',
  usage: 'delete <session> [--db PATH] [--json]',
  options: {},
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const children = childSessions(db, session.id).length;
    deleteSession(db, session.id);
    if (ctx.jsonMode) ctx.json({ deleted: true, id: session.id, childSessions: children });
    else ctx.out(`Deleted session ${session.id} "${session.title}"${children > 0 ? ` and ${children} child session${children === 1 ? '' : 's'}` : ''}.`);
    return 0;
  },
};
