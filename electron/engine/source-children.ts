/**
 * A session's child sessions as the source baseline prices them (shared/replay/source-baseline.ts):
 * the source tool's own compaction calls (Claude Code's compaction agent, linked to its marker
 * by the importer as `metadata.compactionOf`: electron/importers/claude-code-links.ts) and the
 * subagents the model started, each with its recorded calls and the visible output of each
 * call's turn (to recognise a streaming placeholder's output figure).
 */
import type { DB } from '../store/db.js';
import { childSessions } from '../store/sessions.js';
import { listTurnMetas } from '../store/turns.js';
import { listModelCalls } from '../store/model-calls.js';
import type { SourceChildUsage } from '../../shared/contract.js';

export function loadSourceChildren(db: DB, sessionId: number): SourceChildUsage[] {
  return childSessions(db, sessionId).map((child): SourceChildUsage => {
    const compactionOf = child.metadata.compactionOf as { boundaryPosition?: unknown } | undefined;
    const calls = listModelCalls(db, child.id);
    const tokensAt = new Map(listTurnMetas(db, child.id).map((m) => [m.position, m.tokenCount]));
    return {
      sessionId: child.id,
      kind: compactionOf ? 'compaction' : 'subagent',
      title: child.title,
      boundaryPosition: compactionOf && typeof compactionOf.boundaryPosition === 'number' ? compactionOf.boundaryPosition : null,
      calls,
      visibleOutput: calls.map((u) => tokensAt.get(u.position) ?? 0),
    };
  });
}
