/** `show <session>`: a session's turns (role, tokens, a text preview) and its recorded compactions. */
import type { SessionListing, TurnPreview } from '../../../shared/contract.js';
import { childSessions, sessionInfoOf } from '../../store/sessions.js';
import { listExternalCompactions, listTurns } from '../../store/turns.js';
import { formatTable, intOption, requireSession, type CliCommand } from '../framework.js';

const PREVIEW_CHARS = 100;

function preview(text: string, max = PREVIEW_CHARS): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

export const command: CliCommand = {
  name: 'show',
  summary: 'Show a session: its turns with role, tokens and a text preview',
  usage: 'show <session> [--from N] [--limit N] [--db PATH] [--json]',
  options: {
    from: { type: 'string', valueName: 'N', description: 'first turn position to list (default 0)' },
    limit: { type: 'string', valueName: 'N', description: 'at most N turns (default: all)' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const from = intOption(ctx, 'from', 0);
    const limit = intOption(ctx, 'limit', session.turns);
    const turns = listTurns(db, session.id, { from, to: Math.min(session.turns, from + limit) });
    const compactions = listExternalCompactions(db, session.id);
    const children = childSessions(db, session.id);
    const rows = turns.map((t): TurnPreview => {
      const text = t.blocks.map((b) => (b.type === 'text' ? b.text : b.type === 'thinking' ? `(thinking) ${b.thinking}` : b.type === 'tool_use' ? `[${b.name}]` : b.type === 'tool_result' ? `[result] ${b.content}` : `[image ${b.mediaType}]`)).join(' ');
      return { position: t.position, role: t.role, tokens: t.tokenCount, chars: t.charCount, preview: preview(text) };
    });
    if (ctx.jsonMode) {
      ctx.json({
        session: { ...sessionInfoOf(session), metadata: session.metadata },
        externalCompactions: compactions.map((c) => ({ trigger: c.trigger, preTokens: c.preTokens, firstPosition: c.firstPosition, lastPosition: c.lastPosition, boundaryPosition: c.boundaryPosition, summaryTokenCount: c.summaryTokenCount, summaryText: c.summaryText })),
        children: children.map(sessionInfoOf),
        turns: rows,
      } satisfies SessionListing);
      return 0;
    }
    ctx.out(`Session ${session.id}: ${session.title}`);
    ctx.out(`  format ${session.format}, ${session.turns} turns, ${session.tokens} tokens (${session.tokenizer}), ${session.toolCalls} tool calls, from ${session.sourceFile}`);
    if (session.parentSessionId !== null) ctx.out(`  subagent ${session.agentId ?? ''} of session ${session.parentSessionId}`);
    for (const c of compactions) ctx.out(`  recorded compaction (${c.trigger}${c.preTokens !== null ? `, ${c.preTokens} tokens before` : ''}): turns ${c.firstPosition}-${c.lastPosition} summarized in ${c.summaryTokenCount} tokens, boundary before turn ${c.boundaryPosition}`);
    for (const child of children) ctx.out(`  child session ${child.id}: ${preview(child.title, 70)} (${child.turns} turns)`);
    ctx.out('');
    for (const line of formatTable(rows, [
      { header: 'POS', value: (r) => r.position },
      { header: 'ROLE', value: (r) => r.role },
      { header: 'TOKENS', value: (r) => r.tokens },
      { header: 'PREVIEW', value: (r) => r.preview },
    ])) ctx.out(line);
    return 0;
  },
};
