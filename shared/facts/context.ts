/**
 * The text a fact must survive in when the question is "what does the model see": a whole
 * context (buildReplay's message list: summaries, verbatim turns, glue), rendered block by
 * block the way fact extraction reads turns (shared/model/items.ts), so a command
 * extracted from a tool_use's JSON input is found in the same rendering of a tool_use the
 * context still sends.
 */
import type { ContentBlock } from '../model/turn.js';
import { blockToItemText } from '../model/items.js';

/** One message list as one text (messages separated by a blank line). */
export function contextText(messages: ReadonlyArray<{ blocks: readonly ContentBlock[] }>): string {
  return messages.map((m) => m.blocks.map(blockToItemText).join('\n')).join('\n\n');
}
