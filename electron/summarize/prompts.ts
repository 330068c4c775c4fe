/**
 * Prompts of the OpenAI-compatible summarizer. They live in code with a version string:
 * the version is part of every cache key and of the variant identity, so editing a
 * prompt means bumping OPENAI_PROMPT_VERSION (old summaries stay attributed to the old
 * prompt). Leaf, condensed, rolling, watermark and chunk prompts differ in what the
 * input is and what the output replaces; all ask to keep decisions, open tasks and exact
 * names and identifiers.
 */
import type { SummarizeRequest } from '../../shared/strategies/summarizer.js';
import { itemsToSourceText } from '../../shared/summarize/items.js';

export const OPENAI_PROMPT_VERSION = 'openai-1';

/** Sampling temperature per tier: the aggressive rung is shorter and more conservative. */
export const TEMPERATURE = { normal: 0.2, aggressive: 0 } as const;

const KEEP_RULES = `Keep, in this order of priority:
- what the user asked for, and every decision taken (with its reason when stated);
- open tasks, next steps and anything promised but not done yet;
- errors met and whether/how they were resolved;
- exact file paths, commands, function/class/variable names, identifiers, URLs, versions and numbers — copy them character for character.
Drop greetings, repetition, tool output that led nowhere and long listings. Do not invent anything.
Write plain text or short bullet points in the conversation's language, with no preamble ("Here is a summary") and no closing remark.
Never copy the transcript: rewrite it compactly.`;

const INTRO: Record<SummarizeRequest['purpose'], string> = {
  leaf: 'You compress a segment of a long conversation between a user and an AI coding agent (tool calls included) into a summary that replaces the segment in the agent\'s context.',
  condensed: 'You merge several consecutive summaries of a long conversation between a user and an AI agent into ONE summary that replaces them all in the agent\'s context. Keep chronological order; when a later summary settles something an earlier one left open, keep only the outcome.',
  rolling: 'You maintain the running summary of a long conversation between a user and an AI agent. Produce the new running summary: the previous summary updated with the new turns, so that it replaces both.',
  watermark: 'You compress the older part of a conversation between a user and an AI agent into a summary that replaces those turns in the agent\'s context; the most recent turns stay verbatim after it.',
  chunk: 'You compress one chunk of a long conversation between a user and an AI agent into a summary that replaces the chunk in the agent\'s context.',
  digest: 'You rewrite a quick mechanical digest of a conversation segment, using the original turns, into a proper summary that replaces the segment in the agent\'s context.',
};

export interface ChatPrompt {
  system: string;
  user: string;
  temperature: number;
  /** Output cap sent as max_tokens: the target plus headroom so a sentence is not cut. */
  maxTokens: number;
}

/** The messages for one request (the tier's target is already in `req.targetTokens`). */
export function buildPrompt(req: SummarizeRequest): ChatPrompt {
  const length =
    req.tier === 'aggressive'
      ? `Be terse: at most ${req.targetTokens} tokens, fragments are fine, only what the agent cannot continue without.`
      : `Aim for at most ${req.targetTokens} tokens.`;
  const system = `${INTRO[req.purpose]}\n\n${KEEP_RULES}\n\n${length}`;
  const parts: string[] = [];
  if (req.priorSummary) {
    const label = req.purpose === 'rolling' || req.purpose === 'watermark' ? 'Previous summary (to be replaced by yours, keep what still matters):' : 'Summary of what came before (context only, do not repeat it):';
    parts.push(`${label}\n<previous_summary>\n${req.priorSummary}\n</previous_summary>`);
  }
  const what = req.purpose === 'condensed' ? 'Summaries to merge, oldest first' : 'Turns to summarize, oldest first';
  parts.push(`${what}:\n<transcript>\n${itemsToSourceText(req.items)}\n</transcript>`);
  parts.push(req.purpose === 'condensed' ? 'Write the merged summary now.' : 'Write the summary now.');
  return { system, user: parts.join('\n\n'), temperature: TEMPERATURE[req.tier], maxTokens: Math.ceil(req.targetTokens * 1.25) + 64 };
}
