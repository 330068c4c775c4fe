/**
 * The real tokenizer (gpt-tokenizer, ids identical to tiktoken). Token counts are
 * computed once at import and stored per turn; summaries are counted when written.
 */
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { blockToText, type ContentBlock } from '../shared/model/turn.js';

export const TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

// Transcripts contain literal "<|endoftext|>" and friends: count them as text.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string, tokenizer: TokenizerName = DEFAULT_TOKENIZER): number {
  if (text.length === 0) return 0;
  return tokenizer === 'cl100k_base' ? cl100k.countTokens(text, AS_TEXT) : o200k.countTokens(text, AS_TEXT);
}

/** Tokens of a turn's content: every block, tool inputs and results included. */
export function countBlockTokens(blocks: readonly ContentBlock[], tokenizer: TokenizerName = DEFAULT_TOKENIZER): number {
  let n = 0;
  for (const b of blocks) n += countTokens(blockToText(b), tokenizer);
  return n;
}

export function isTokenizerName(s: string): s is TokenizerName {
  return (TOKENIZERS as readonly string[]).includes(s);
}
