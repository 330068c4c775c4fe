/**
 * An Anthropic Messages API request body: `system` (a string or text blocks) and
 * `messages` with content strings or blocks (text, thinking, tool_use, tool_result,
 * image). One body per session; a JSON array or JSONL of bodies gives several.
 * tool_result blocks stay inside 'user' turns, as the API shapes them.
 */
import { z } from 'zod';
import type { ContentBlock, ImportedTurn } from '../../shared/model/turn.js';
import { anthropicBlocks } from './blocks.js';
import { ImportError, parseRecord } from './errors.js';
import { baseTitle, titleFrom, type ImportedSession, type Importer, type ImporterContext, type ParsedInput } from './types.js';

const Blocks = z.array(z.looseObject({ type: z.string() }));
const BodySchema = z.looseObject({
  model: z.string().optional(),
  system: z.union([z.string(), Blocks]).optional(),
  messages: z.array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), Blocks]) })).min(1),
});
const BODY = 'an Anthropic Messages request body ({"system"?, "messages": [{"role": "user"|"assistant", "content"}]})';

function bodySession(value: unknown, ctx: ImporterContext, line?: number, index?: number): ImportedSession {
  const body = parseRecord(BodySchema, value, ctx.fileName, index === undefined ? BODY : `${BODY} at [${index}]`, line);
  const turns: ImportedTurn[] = [];
  const at = (i: number): string => `${line !== undefined ? `line-${line}:` : index !== undefined ? `[${index}]:` : ''}messages[${i}]`;
  if (body.system !== undefined) {
    const blocks: ContentBlock[] = anthropicBlocks(body.system);
    if (blocks.length > 0) turns.push({ role: 'system', blocks, sourceIds: ['system'], model: null });
  }
  let prompt: string | null = null;
  body.messages.forEach((m, i) => {
    const blocks = anthropicBlocks(m.content);
    if (m.role === 'user' && prompt === null) {
      const text = blocks.find((b) => b.type === 'text' && b.text.trim().length > 0);
      if (text && text.type === 'text') prompt = text.text;
    }
    turns.push({ role: m.role, blocks, sourceIds: [at(i)], model: m.role === 'assistant' ? (body.model ?? null) : null });
  });
  return { title: prompt ? titleFrom(prompt) : baseTitle(ctx.fileName), format: 'anthropic', turns, externalCompactions: [], metadata: body.model ? { model: body.model } : {} };
}

export function importAnthropic(input: ParsedInput, ctx: ImporterContext): ImportedSession[] {
  if (input.kind === 'jsonl') {
    const out: ImportedSession[] = [];
    for (const { line, value } of input.records) out.push(bodySession(value, ctx, line));
    return out;
  }
  if (Array.isArray(input.value)) {
    if (input.value.length === 0) throw new ImportError(ctx.fileName, `the array is empty: expected ${BODY}`);
    return input.value.map((v, i) => bodySession(v, ctx, undefined, i));
  }
  return [bodySession(input.value, ctx)];
}

export const anthropicImporter: Importer = { format: 'anthropic', import: importAnthropic };
