/**
 * SWE-agent trajectories (`.traj`). Two layouts:
 * - `history` (what the model saw, preferred when present):
 *   - function-calling agents: OpenAI-style assistant `tool_calls` and `role: tool`
 *     observations answering `tool_call_ids` -> tool_use / tool_result pairs;
 *   - classic agents: the command is inside the assistant's text (a fenced block, also in
 *     the message's `action`) and the observation is the next user message. Each such
 *     action + observation is a tool cycle: the assistant turn keeps its text and gains a
 *     tool_use (name = the command's first word, input = {command}); the observation turn
 *     stays a user turn whose one block is the matching tool_result, its content the
 *     original text. Replay sends the same words; masking sees the cycles.
 * - `trajectory` only (older files): steps `{response, thought, action, observation}`,
 *   each an assistant turn (response text + tool_use) and a user turn holding the result.
 * In-context demonstrations (`is_demo`) stay as the user turns they were.
 */
import { z } from 'zod';
import type { ContentBlock, ImportedTurn } from '../../shared/model/turn.js';
import { OpenAIMessageSchema, flattenToolResultContent, openaiTurn } from './blocks.js';
import { ImportError, parseRecord } from './errors.js';
import { baseTitle, titleFrom, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const TrajSchema = z.looseObject({
  history: z.array(z.unknown()).optional(),
  trajectory: z.array(z.unknown()).optional(),
  info: z.looseObject({ exit_status: z.string().nullish() }).optional(),
});
const HistoryMessageSchema = OpenAIMessageSchema.extend({
  tool_call_ids: z.array(z.string()).nullish(),
  is_demo: z.boolean().optional(),
  agent: z.string().optional(),
  action: z.string().nullish(),
});
const StepSchema = z.looseObject({
  action: z.string(),
  observation: z.string().nullish(),
  response: z.string().nullish(),
  thought: z.string().nullish(),
});

/** The last fenced block of an assistant text: where classic SWE-agent writes its command. */
function fencedCommand(text: string): string | null {
  const blocks = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)];
  const last = blocks.at(-1)?.[1]?.trim();
  return last ? last : null;
}

/** The tool_use of a classic action: name = the command's first word, input = the whole command. */
function actionToolUse(command: string, id: string): ContentBlock {
  const name = /^\S+/.exec(command)?.[0] ?? 'command';
  return { type: 'tool_use', id, name, input: { command } };
}

function textOfTurn(turn: ImportedTurn): string {
  return turn.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

interface Built {
  turns: ImportedTurn[];
  demonstrations: number;
  prompt: string | null;
  issueTitle: string | null;
}

function fromHistory(history: unknown[], fileName: string): Built {
  const turns: ImportedTurn[] = [];
  let demonstrations = 0;
  let issueTitle: string | null = null;
  let prompt: string | null = null;
  /** The classic action waiting for its observation (the next user message). */
  let pending: string | null = null;
  history.forEach((raw, i) => {
    const msg = parseRecord(HistoryMessageSchema, raw, fileName, `a SWE-agent history message at history[${i}]`);
    const sourceId = `history[${i}]`;
    if (msg.is_demo) demonstrations++;
    const ids = msg.tool_call_ids ?? [];
    if (msg.role === 'tool' && !msg.tool_call_id && ids.length > 0) {
      // One observation may answer several calls: the text goes with the first.
      const text = flattenToolResultContent(msg.content);
      turns.push({
        role: 'tool',
        blocks: ids.map((id, k) => ({ type: 'tool_result' as const, tool_use_id: id, content: k === 0 ? text : '', is_error: false })),
        sourceIds: [sourceId],
      });
      pending = null;
      return;
    }
    if (msg.role === 'user' && pending !== null && !msg.is_demo) {
      // The observation of the classic action before it: its text becomes the tool result.
      turns.push({ role: 'user', blocks: [{ type: 'tool_result', tool_use_id: pending, content: flattenToolResultContent(msg.content), is_error: false }], sourceIds: [sourceId] });
      pending = null;
      return;
    }
    pending = null;
    const turn = openaiTurn(msg, sourceId);
    if (turn.role === 'assistant' && !turn.blocks.some((b) => b.type === 'tool_use')) {
      const command = msg.action?.trim() || fencedCommand(textOfTurn(turn));
      if (command) {
        turn.blocks.push(actionToolUse(command, `action-${i}`));
        pending = `action-${i}`;
      }
    }
    if (turn.role === 'user' && !msg.is_demo) {
      const text = turn.blocks.find((b) => b.type === 'text');
      if (text && text.type === 'text') {
        prompt ??= text.text;
        issueTitle ??= /ISSUE:\s*\n\s*(\S.*)/.exec(text.text)?.[1] ?? null;
      }
    }
    turns.push(turn);
  });
  return { turns, demonstrations, prompt, issueTitle };
}

function fromTrajectory(steps: unknown[], fileName: string): Built {
  const turns: ImportedTurn[] = [];
  steps.forEach((raw, i) => {
    const step = parseRecord(StepSchema, raw, fileName, `a SWE-agent trajectory step at trajectory[${i}] ({"action", "observation", "response"?})`);
    const id = `step-${i}`;
    const text = step.response ?? step.thought ?? '';
    const blocks: ContentBlock[] = text.length > 0 ? [{ type: 'text', text }] : [];
    blocks.push(actionToolUse(step.action.trim(), id));
    turns.push({ role: 'assistant', blocks, sourceIds: [`trajectory[${i}]`] });
    if (step.observation !== null && step.observation !== undefined) {
      turns.push({ role: 'user', blocks: [{ type: 'tool_result', tool_use_id: id, content: step.observation, is_error: false }], sourceIds: [`trajectory[${i}].observation`] });
    }
  });
  return { turns, demonstrations: 0, prompt: null, issueTitle: null };
}

export function importSweAgent(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind !== 'document') throw new ImportError(ctx.fileName, 'expected a SWE-agent trajectory (one JSON document with "history" or "trajectory"), got JSONL');
  const traj = parseRecord(TrajSchema, input.value, ctx.fileName, 'a SWE-agent trajectory ({"history": [...]} or {"trajectory": [...]}, "info"?)');
  let built: Built;
  if (traj.history && traj.history.length > 0) built = fromHistory(traj.history, ctx.fileName);
  else if (traj.trajectory && traj.trajectory.length > 0) built = fromTrajectory(traj.trajectory, ctx.fileName);
  else throw new ImportError(ctx.fileName, 'expected a SWE-agent trajectory with a non-empty "history" or "trajectory" array');
  const { turns, demonstrations, prompt, issueTitle } = built;
  const title = issueTitle ? titleFrom(issueTitle) : prompt ? titleFrom(prompt) : baseTitle(ctx.fileName);
  return [{ title, format: 'swe-agent', turns, externalCompactions: [], metadata: { demonstrations, exitStatus: traj.info?.exit_status ?? null } }];
}

export const sweAgentImporter: Importer = { format: 'swe-agent', import: importSweAgent };
