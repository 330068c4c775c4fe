/**
 * The message validator: checks a message list against the rules the OpenAI Chat
 * Completions and the Anthropic Messages APIs enforce on a request, expressed on our
 * canonical blocks (the exports re-shape these messages mechanically, so a replay that
 * passes here exports to a valid request). Used by the watermark pass before it
 * commits, and by the tests on every replay.
 *
 * Rules for both:
 * - no message without blocks, no whitespace-only text block;
 * - system messages hold text only;
 * - tool_use only in assistant messages, tool_result only in user/tool messages, a
 *   'tool' message holds only tool results;
 * - every tool_use in assistant message i has exactly one tool_result in message i+1,
 *   and every tool_result answers a tool_use of the message right before it;
 * - tool results come before any other block of their message (OpenAI needs the
 *   `tool` messages right after the call; Anthropic wants them first in the content);
 * - a tool_use id appears once per message.
 * OpenAI only: an assistant message needs text, an image placeholder or a tool call
 *   (reasoning alone has no field in Chat Completions).
 * Anthropic only: system messages only at the start (they become `system`); at least
 *   one other message; the first is the user's; user and assistant strictly alternate;
 *   tool_use ids unique in the whole request and matching `^[a-zA-Z0-9_-]+$`.
 */
import type { ContentBlock } from '../model/turn.js';
import type { ReplayMessage } from '../contract.js';
import { TOOL_ID_PATTERN } from './normalize.js';

export type MessageRules = 'openai' | 'anthropic';

export type ProblemCode =
  | 'empty_message'
  | 'empty_text'
  | 'system_content'
  | 'system_not_leading'
  | 'tool_use_outside_assistant'
  | 'tool_result_outside_user'
  | 'tool_message_content'
  | 'unanswered_tool_use'
  | 'dangling_tool_result'
  | 'duplicate_tool_result'
  | 'tool_result_not_first'
  | 'duplicate_tool_use_id'
  | 'tool_use_id_pattern'
  | 'empty_assistant'
  | 'no_messages'
  | 'first_not_user'
  | 'not_alternating';

export interface MessageProblem {
  /** Index of the offending message in the list. */
  index: number;
  code: ProblemCode;
  message: string;
}

type Checked = Pick<ReplayMessage, 'role' | 'blocks'>;

const isUserSide = (m: Checked) => m.role === 'user' || m.role === 'tool';

function toolUses(m: Checked): Extract<ContentBlock, { type: 'tool_use' }>[] {
  return m.blocks.filter((b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use');
}

/** Every problem of `messages` under `rules`; an empty list means valid. */
export function validateMessages(messages: readonly Checked[], rules: MessageRules): MessageProblem[] {
  const problems: MessageProblem[] = [];
  const add = (index: number, code: ProblemCode, message: string) => problems.push({ index, code, message });
  const allToolIds = new Set<string>();
  let seenNonSystem = false;
  let previousSide: 'user' | 'assistant' | null = null;

  messages.forEach((m, i) => {
    if (m.blocks.length === 0) add(i, 'empty_message', `message ${i} (${m.role}) has no content`);
    for (const b of m.blocks) {
      if (b.type === 'text' && b.text.trim().length === 0) add(i, 'empty_text', `message ${i} has an empty text block`);
      if (b.type === 'tool_use' && m.role !== 'assistant') add(i, 'tool_use_outside_assistant', `message ${i} (${m.role}) holds tool_use ${b.id}`);
      if (b.type === 'tool_result' && !isUserSide(m)) add(i, 'tool_result_outside_user', `message ${i} (${m.role}) holds tool_result ${b.tool_use_id}`);
    }

    if (m.role === 'system') {
      if (m.blocks.some((b) => b.type !== 'text')) add(i, 'system_content', `system message ${i} holds non-text blocks`);
      if (rules === 'anthropic' && seenNonSystem) add(i, 'system_not_leading', `system message ${i} comes after the conversation started`);
      return;
    }
    if (m.role === 'tool' && m.blocks.some((b) => b.type !== 'tool_result')) add(i, 'tool_message_content', `tool message ${i} holds blocks other than tool results`);

    const side = m.role === 'assistant' ? 'assistant' : 'user';
    if (rules === 'anthropic') {
      if (!seenNonSystem && side !== 'user') add(i, 'first_not_user', `the first message (${i}) is the assistant's; Anthropic needs the user's first`);
      if (previousSide === side) add(i, 'not_alternating', `messages ${i - 1} and ${i} are both ${side} messages`);
    }
    seenNonSystem = true;
    previousSide = side;

    // Results must answer calls of the message right before, once each, and come first.
    if (side === 'user') {
      const prev = i > 0 ? messages[i - 1] : undefined;
      const callable = new Set(prev && prev.role === 'assistant' ? toolUses(prev).map((u) => u.id) : []);
      const answered = new Set<string>();
      let otherSeen = false;
      for (const b of m.blocks) {
        if (b.type !== 'tool_result') {
          otherSeen = true;
          continue;
        }
        if (otherSeen) add(i, 'tool_result_not_first', `tool_result ${b.tool_use_id} in message ${i} comes after other content`);
        if (!callable.has(b.tool_use_id)) add(i, 'dangling_tool_result', `tool_result ${b.tool_use_id} in message ${i} answers no tool_use of message ${i - 1}`);
        else if (answered.has(b.tool_use_id)) add(i, 'duplicate_tool_result', `tool_use ${b.tool_use_id} is answered twice in message ${i}`);
        answered.add(b.tool_use_id);
      }
      return;
    }

    // Assistant: each call answered in the next message; ids unique and well-formed.
    const next = messages[i + 1];
    const answeredNext = new Set(next && isUserSide(next) ? next.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : []);
    const inMessage = new Set<string>();
    for (const u of toolUses(m)) {
      if (inMessage.has(u.id)) add(i, 'duplicate_tool_use_id', `tool_use id ${u.id} appears twice in message ${i}`);
      else if (rules === 'anthropic' && allToolIds.has(u.id)) add(i, 'duplicate_tool_use_id', `tool_use id ${u.id} in message ${i} was already used earlier`);
      inMessage.add(u.id);
      allToolIds.add(u.id);
      if (rules === 'anthropic' && !TOOL_ID_PATTERN.test(u.id)) add(i, 'tool_use_id_pattern', `tool_use id ${JSON.stringify(u.id)} in message ${i} does not match ^[a-zA-Z0-9_-]+$`);
      if (!answeredNext.has(u.id)) add(i, 'unanswered_tool_use', `tool_use ${u.id} (${u.name}) in message ${i} has no tool_result in the next message`);
    }
    if (rules === 'openai' && !m.blocks.some((b) => b.type === 'text' || b.type === 'tool_use' || b.type === 'image')) {
      add(i, 'empty_assistant', `assistant message ${i} holds only reasoning, which Chat Completions cannot carry`);
    }
  });

  if (rules === 'anthropic' && !seenNonSystem) add(messages.length, 'no_messages', 'there is no user or assistant message');
  return problems;
}
