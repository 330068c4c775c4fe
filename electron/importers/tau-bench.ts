/**
 * tau-bench results (sierra-research/tau-bench's published historical trajectories): a JSON
 * array of records, one record, or JSONL of records, each
 * `{task_id, reward, info, traj: [OpenAI chat messages with tool_calls], trial}`.
 * Every record is one session: its `traj` maps as OpenAI messages (electron/importers/openai.ts;
 * tool call ids repeat inside a trajectory, the writer pairs the nearest preceding call),
 * titled "task <id>: <first user message>", with `taskId`, `reward`, `trial` and `info`
 * (the task, the reward breakdown) kept in the session metadata.
 */
import { z } from 'zod';
import { ImportError, parseRecord } from './errors.js';
import { sessionFromMessages } from './openai.js';
import { titleFrom, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const RecordSchema = z.looseObject({
  task_id: z.union([z.number(), z.string()]).nullish(),
  reward: z.number().nullish(),
  trial: z.number().nullish(),
  info: z.unknown().optional(),
  traj: z.array(z.unknown()).min(1),
});
const RECORD = 'a tau-bench result record ({"task_id", "reward", "info", "traj": [OpenAI messages], "trial"})';

function recordSession(value: unknown, ctx: ImporterContext, where: string, line?: number): ImportedSession {
  const rec = parseRecord(RecordSchema, value, ctx.fileName, `${RECORD}${where ? ` at ${where}` : ''}`, line);
  const session = sessionFromMessages(rec.traj, ctx, `${where}traj`);
  const task = rec.task_id ?? null;
  // sessionFromMessages titles by the first user text, else the file name.
  session.title = titleFrom(task !== null ? `task ${task}: ${session.title}` : session.title);
  session.format = 'tau-bench';
  session.metadata = { taskId: task, reward: rec.reward ?? null, trial: rec.trial ?? null, ...(rec.info !== undefined ? { info: rec.info } : {}) };
  return session;
}

export function importTauBench(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind === 'jsonl') {
    const out: ImportedSession[] = [];
    for (const { line, value } of input.records) out.push(recordSession(value, ctx, '', line));
    return out;
  }
  const doc = input.value;
  if (Array.isArray(doc)) {
    if (doc.length === 0) throw new ImportError(ctx.fileName, 'the record array is empty: expected at least one tau-bench result record');
    return doc.map((r, i) => recordSession(r, ctx, `[${i}].`));
  }
  return [recordSession(doc, ctx, '')];
}

export const tauBenchImporter: Importer = { format: 'tau-bench', import: importTauBench };
