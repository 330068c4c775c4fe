/**
 * Ties a Claude Code session to its child sessions once they are all read (inline
 * sidechains and subagent files alike), before anything is written:
 *
 * - **Task / Agent tool call -> subagent.** Claude Code answers a Task call with a user record
 *   whose `toolUseResult.agentId` names the agent it ran (2.0.x and later; the importer
 *   collects them in `metadata.taskAgents`, tool_use id -> agent id). Older files (inline
 *   sidechains, no agentId) are matched by the prompt: the sidechain's first user text is
 *   the call's `input.prompt`. The parent's `metadata.taskCalls` lists every call
 *   `{toolUseId, position, description, agentId}` (position = the assistant turn holding it;
 *   agentId null when unknown), and a linked child gets `metadata.spawnedBy = {toolUseId,
 *   position}`. The link lives in metadata, not in a column: it is a fact about the source,
 *   read by the window and the CLI, never queried by SQL.
 * - **Compaction agent -> compaction marker.** `agent-acompact-*` is Claude Code's own
 *   summarization call, not a subagent the model asked for: it is tied to the external
 *   compaction it produced (the first whose boundary is at or after the agent's last turn,
 *   else the last one) as `metadata.compactionOf = {sourceId, boundaryPosition, trigger,
 *   preTokens}`, titled after it, and listed in the parent's `metadata.compactionAgents`.
 */
import type { ImportedSession, ImportedSessionTurn } from './types.js';

const TASK_TOOLS = new Set(['Task', 'Agent']);

export interface TaskCall {
  toolUseId: string;
  position: number;
  description: string | null;
  agentId: string | null;
}

function turnsOf(session: ImportedSession): ImportedSessionTurn[] | null {
  return Array.isArray(session.turns) ? (session.turns as ImportedSessionTurn[]) : null;
}

function firstUserText(turns: readonly ImportedSessionTurn[]): string | null {
  for (const t of turns) {
    if (t.role !== 'user') continue;
    for (const b of t.blocks) if (b.type === 'text' && b.text.trim().length > 0) return b.text.trim();
  }
  return null;
}

export function isCompactionAgent(agentId: string | null | undefined): boolean {
  return typeof agentId === 'string' && agentId.startsWith('acompact');
}

/** Links `session`'s children (Claude Code) to its Task calls and compactions, in place. */
export function linkClaudeCodeChildren(session: ImportedSession): void {
  const turns = turnsOf(session);
  if (!turns) return;
  const meta = (session.metadata ??= {});
  const taskAgents = (meta.taskAgents ?? {}) as Record<string, string>;
  const calls: Array<TaskCall & { prompt: string | null }> = [];
  turns.forEach((t, position) => {
    for (const b of t.blocks) {
      if (b.type !== 'tool_use' || !TASK_TOOLS.has(b.name)) continue;
      const input = (b.input ?? {}) as Record<string, unknown>;
      calls.push({
        toolUseId: b.id,
        position,
        description: typeof input.description === 'string' ? input.description : null,
        agentId: taskAgents[b.id] ?? null,
        prompt: typeof input.prompt === 'string' ? input.prompt.trim() : null,
      });
    }
  });
  const compactionAgents: Array<{ agentId: string; compactionSourceId: string | null; boundaryPosition: number }> = [];
  for (const child of session.children ?? []) {
    const childMeta = (child.metadata ??= {});
    const childTurns = turnsOf(child) ?? [];
    if (isCompactionAgent(child.agentId) && session.externalCompactions.length > 0) {
      const lastStamp = childTurns.map((t) => t.timestamp).filter((x): x is string => typeof x === 'string').at(-1) ?? null;
      const compaction = (lastStamp !== null ? session.externalCompactions.find((c) => typeof c.timestamp === 'string' && c.timestamp >= lastStamp) : undefined) ?? session.externalCompactions.at(-1)!;
      childMeta.compactionOf = { sourceId: compaction.sourceId ?? null, boundaryPosition: compaction.boundaryPosition, trigger: compaction.trigger, preTokens: compaction.preTokens };
      child.title = `Claude Code compaction call (${compaction.trigger}${compaction.preTokens !== null ? `, ${compaction.preTokens} tokens` : ''}): the summary before turn ${compaction.boundaryPosition}`;
      compactionAgents.push({ agentId: child.agentId!, compactionSourceId: compaction.sourceId ?? null, boundaryPosition: compaction.boundaryPosition });
      continue;
    }
    let call = child.agentId ? calls.find((c) => c.agentId === child.agentId) : undefined;
    if (!call) {
      const prompt = firstUserText(childTurns);
      call = prompt !== null ? calls.find((c) => c.agentId === null && c.prompt === prompt) : undefined;
      if (call) call.agentId = child.agentId ?? null;
    }
    if (call) childMeta.spawnedBy = { toolUseId: call.toolUseId, position: call.position };
  }
  if (calls.length > 0) meta.taskCalls = calls.map(({ prompt: _prompt, ...c }) => c);
  if (compactionAgents.length > 0) meta.compactionAgents = compactionAgents;
}
