/**
 * OpenHands: an event stream (a JSON array of events), an evaluation record with
 * `history`, or JSONL of evaluation records (one session per line).
 * - An action with `tool_call_metadata` is an assistant turn: its thought as text and
 *   a tool_use (id = tool_call_id, input = the model's parsed arguments). Actions from
 *   one model response (parallel calls) share one turn.
 * - An observation answers the action named by its `cause`: a 'tool' turn with one
 *   tool_result (is_error when success is false or it is an error observation).
 * - Agent actions without metadata (older, non function-calling agents) get a
 *   tool_use id `event-<id>` so their observations still pair via `cause`.
 * - message / system actions are user / assistant / system text turns.
 * - The model call behind an assistant turn: its OpenHands token usage (llm_metrics /
 *   the record's metrics `token_usages`, matched by the litellm response id), else the
 *   OpenAI-style `usage` of the action's model_response; none when neither is there.
 * - Bookkeeping events (agent state changes, recall of workspace context, null
 *   observations) are skipped and counted in metadata.skipped.
 */
import { z } from 'zod';
import type { ContentBlock } from '../../shared/model/turn.js';
import { flattenToolResultContent, parseToolArguments } from './blocks.js';
import { ImportError, parseRecord } from './errors.js';
import { openaiUsage, openhandsUsagesByResponse } from './usage.js';
import { baseTitle, titleFrom, type ImportedCallUsage, type ImportedSession, type ImportedSessionTurn, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const EventSchema = z.looseObject({
  id: z.union([z.number(), z.string()]).optional(),
  source: z.string().optional(),
  timestamp: z.string().optional(),
  message: z.string().nullish(),
  action: z.string().optional(),
  observation: z.string().optional(),
  args: z.record(z.string(), z.unknown()).nullish(),
  content: z.unknown().optional(),
  cause: z.union([z.number(), z.string()]).nullish(),
  success: z.boolean().nullish(),
  tool_call_metadata: z
    .looseObject({ function_name: z.string(), tool_call_id: z.string(), model_response: z.unknown().optional() })
    .nullish(),
});
type OhEvent = z.infer<typeof EventSchema>;
const EVENT = 'an OpenHands event (an object with "action" or "observation")';

const NOISE_ACTIONS = new Set(['change_agent_state', 'recall', 'null']);
const NOISE_OBSERVATIONS = new Set(['agent_state_changed', 'recall', 'null']);

interface ModelMessage {
  content: string | null;
  toolCalls: Map<string, unknown>;
  responseId: string | null;
  model: string | null;
  /** The response's OpenAI-style usage object, as given (read by usage.ts). */
  usage: unknown;
}

/** The assistant message inside a litellm model_response (thought and raw tool arguments). */
function modelMessage(modelResponse: unknown): ModelMessage {
  const out: ModelMessage = { content: null, toolCalls: new Map(), responseId: null, model: null, usage: undefined };
  const r = modelResponse as { id?: unknown; model?: unknown; usage?: unknown; choices?: Array<{ message?: { content?: unknown; tool_calls?: Array<{ id?: unknown; function?: { arguments?: unknown } }> } }> } | null;
  if (!r || typeof r !== 'object') return out;
  if (typeof r.id === 'string') out.responseId = r.id;
  if (typeof r.model === 'string') out.model = r.model;
  out.usage = r.usage;
  const message = Array.isArray(r.choices) ? r.choices[0]?.message : undefined;
  if (message) {
    if (typeof message.content === 'string') out.content = message.content;
    for (const call of message.tool_calls ?? []) if (typeof call.id === 'string') out.toolCalls.set(call.id, parseToolArguments(call.function?.arguments));
  }
  return out;
}

function argsText(e: OhEvent, key: string): string | null {
  const v = e.args?.[key];
  return typeof v === 'string' ? v : null;
}

/** The usage of the call that produced a model response, when the file reports one. */
function callUsage(model: ModelMessage, usages: ReturnType<typeof openhandsUsagesByResponse>, timestamp: string | null): ImportedCallUsage | undefined {
  const tokenUsage = model.responseId !== null ? usages.get(model.responseId) : undefined;
  if (tokenUsage) {
    const { responseId, model: usageModel, ...figures } = tokenUsage;
    return { messageId: responseId, model: model.model ?? usageModel, timestamp, ...figures };
  }
  if (model.usage === undefined || model.usage === null) return undefined;
  return { messageId: model.responseId, model: model.model, timestamp, ...openaiUsage(model.usage) };
}

function eventsSession(events: unknown[], ctx: ImporterContext, where: string, meta: { instanceId?: string; metrics?: unknown }): ImportedSession {
  const turns: ImportedSessionTurn[] = [];
  const usages = openhandsUsagesByResponse(meta.metrics, events);
  const skipped: Record<string, number> = {};
  /** action event id -> tool_use id, for observations' `cause`. */
  const toolUseOfAction = new Map<string, string>();
  let lastResponseId: string | null = null;
  let prompt: string | null = null;
  const skip = (label: string): void => {
    skipped[label] = (skipped[label] ?? 0) + 1;
  };

  events.forEach((raw, i) => {
    const e = parseRecord(EventSchema, raw, ctx.fileName, `${EVENT} at ${where}[${i}]`);
    const sourceIds = [e.id !== undefined ? `event-${e.id}` : `${where}[${i}]`];
    const base = { sourceIds, timestamp: e.timestamp ?? null };
    if (e.action !== undefined) {
      const action = e.action;
      if (NOISE_ACTIONS.has(action)) return skip(`action:${action}`);
      if (action === 'system') {
        turns.push({ role: 'system', blocks: [{ type: 'text', text: argsText(e, 'content') ?? e.message ?? '' }], ...base });
        lastResponseId = null;
        return;
      }
      if (action === 'message' && !e.tool_call_metadata) {
        const text = argsText(e, 'content') ?? e.message ?? '';
        const role = e.source === 'user' ? 'user' : 'assistant';
        if (role === 'user') prompt ??= text;
        turns.push({ role, blocks: [{ type: 'text', text }], ...base });
        lastResponseId = null;
        return;
      }
      if (e.source === 'user' || e.source === 'environment') return skip(`action:${action}`);
      // An agent action: a tool call, with or without function-calling metadata.
      const tcm = e.tool_call_metadata;
      const model = modelMessage(tcm?.model_response);
      const toolUseId = tcm?.tool_call_id ?? `event-${e.id ?? i}`;
      const { thought: _thought, ...restArgs } = e.args ?? {};
      const input = tcm && model.toolCalls.has(toolUseId) ? model.toolCalls.get(toolUseId) : restArgs;
      const toolUse: ContentBlock = { type: 'tool_use', id: toolUseId, name: tcm?.function_name ?? action, input };
      if (e.id !== undefined) toolUseOfAction.set(String(e.id), toolUseId);
      const prev = turns[turns.length - 1];
      if (model.responseId && model.responseId === lastResponseId && prev?.role === 'assistant') {
        prev.blocks.push(toolUse);
        prev.sourceIds.push(...sourceIds);
        return;
      }
      const thought = argsText(e, 'thought') || model.content || (tcm ? '' : (e.message ?? ''));
      const blocks: ContentBlock[] = thought.length > 0 ? [{ type: 'text', text: thought }, toolUse] : [toolUse];
      const usage = tcm ? callUsage(model, usages, base.timestamp) : undefined;
      turns.push({ role: 'assistant', blocks, model: model.model, ...base, ...(usage ? { usage } : {}) });
      lastResponseId = model.responseId;
      return;
    }
    if (e.observation !== undefined) {
      const observation = e.observation;
      const answered = (e.cause !== null && e.cause !== undefined ? toolUseOfAction.get(String(e.cause)) : undefined) ?? e.tool_call_metadata?.tool_call_id;
      // A bookkeeping observation is dropped unless it is the only answer a tool call gets.
      if (NOISE_OBSERVATIONS.has(observation) && !answered) return skip(`observation:${observation}`);
      const content = e.content !== undefined && e.content !== null ? flattenToolResultContent(e.content) : (e.message ?? '');
      if (answered) {
        turns.push({ role: 'tool', blocks: [{ type: 'tool_result', tool_use_id: answered, content, is_error: e.success === false || observation === 'error' }], ...base });
      } else {
        // An observation nothing asked for (e.g. an error raised by the runtime): the model reads it as a user message.
        turns.push({ role: 'user', blocks: [{ type: 'text', text: content }], ...base });
      }
      lastResponseId = null;
      return;
    }
    throw new ImportError(ctx.fileName, `${where}[${i}] has neither "action" nor "observation": expected ${EVENT}`);
  });
  const title = meta.instanceId ?? (prompt ? titleFrom(prompt) : baseTitle(ctx.fileName));
  return { title, format: 'openhands', turns, externalCompactions: [], metadata: { skipped, ...(meta.instanceId ? { instanceId: meta.instanceId } : {}) } };
}

const RecordSchema = z.looseObject({ instance_id: z.string().optional(), history: z.array(z.unknown()), metrics: z.unknown().optional() });

function recordSession(value: unknown, ctx: ImporterContext, line?: number): ImportedSession {
  const rec = parseRecord(RecordSchema, value, ctx.fileName, 'an OpenHands evaluation record ({"history": [...]})', line);
  return eventsSession(rec.history, ctx, line !== undefined ? `line ${line} history` : 'history', { instanceId: rec.instance_id, metrics: rec.metrics });
}

export function importOpenHands(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind === 'jsonl') {
    const out: ImportedSession[] = [];
    for (const { line, value } of input.records) out.push(recordSession(value, ctx, line));
    return out;
  }
  if (Array.isArray(input.value)) {
    if (input.value.length === 0) throw new ImportError(ctx.fileName, `the event array is empty: expected ${EVENT}`);
    return [eventsSession(input.value, ctx, '', {})];
  }
  return [recordSession(input.value, ctx)];
}

export const openhandsImporter: Importer = { format: 'openhands', import: importOpenHands };
