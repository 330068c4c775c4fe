/**
 * SWE-agent trajectories (`.traj`): the `history` array is what the model saw.
 * - Function-calling agents: OpenAI-style assistant `tool_calls` and `role: tool`
 *   observations answering `tool_call_ids` -> tool_use / tool_result pairs.
 * - Classic agents: the command is inside the assistant's text (a fenced block) and
 *   the observation is the next user message; both are kept as the text the model
 *   wrote and read (no tool cycles are invented).
 * In-context demonstrations (`is_demo`) stay as the user turns they were.
 */
import { z } from 'zod';
import type { ImportedTurn } from '../../shared/model/turn.js';
import { OpenAIMessageSchema, flattenToolResultContent, openaiTurn } from './blocks.js';
import { ImportError, parseRecord } from './errors.js';
import { baseTitle, titleFrom, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const TrajSchema = z.looseObject({
  history: z.array(z.unknown()).min(1),
  info: z.looseObject({ exit_status: z.string().nullish() }).optional(),
});
const HistoryMessageSchema = OpenAIMessageSchema.extend({
  tool_call_ids: z.array(z.string()).nullish(),
  is_demo: z.boolean().optional(),
  agent: z.string().optional(),
});

export function importSweAgent(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind !== 'document') throw new ImportError(ctx.fileName, 'expected a SWE-agent trajectory (one JSON document with "history"), got JSONL');
  const traj = parseRecord(TrajSchema, input.value, ctx.fileName, 'a SWE-agent trajectory ({"history": [...], "info"?})');
  const turns: ImportedTurn[] = [];
  let demos = 0;
  let issueTitle: string | null = null;
  let prompt: string | null = null;
  traj.history.forEach((raw, i) => {
    const msg = parseRecord(HistoryMessageSchema, raw, ctx.fileName, `a SWE-agent history message at history[${i}]`);
    if (msg.is_demo) demos++;
    const ids = msg.tool_call_ids ?? [];
    if (msg.role === 'tool' && !msg.tool_call_id && ids.length > 0) {
      // One observation may answer several calls: the text goes with the first.
      const text = flattenToolResultContent(msg.content);
      turns.push({
        role: 'tool',
        blocks: ids.map((id, k) => ({ type: 'tool_result' as const, tool_use_id: id, content: k === 0 ? text : '', is_error: false })),
        sourceIds: [`history[${i}]`],
      });
      return;
    }
    const turn = openaiTurn(msg, `history[${i}]`);
    if (turn.role === 'user' && !msg.is_demo) {
      const text = turn.blocks.find((b) => b.type === 'text');
      if (text && text.type === 'text') {
        prompt ??= text.text;
        issueTitle ??= /ISSUE:\s*\n\s*(\S.*)/.exec(text.text)?.[1] ?? null;
      }
    }
    turns.push(turn);
  });
  const title = issueTitle ? titleFrom(issueTitle) : prompt ? titleFrom(prompt) : baseTitle(ctx.fileName);
  return [{ title, format: 'swe-agent', turns, externalCompactions: [], metadata: { demonstrations: demos, exitStatus: traj.info?.exit_status ?? null } }];
}

export const sweAgentImporter: Importer = { format: 'swe-agent', import: importSweAgent };
