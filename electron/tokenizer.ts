/**
 * The real tokenizer (gpt-tokenizer, ids identical to tiktoken). Token counts are
 * computed once at import and stored per turn; summaries are counted when written.
 */
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { blockToText, type ContentBlock, type Turn } from '../shared/model/turn.js';

export const TOKENIZERS = ['o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

// Transcripts contain literal "<|endoftext|>" and friends: count them as text.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

function countExact(text: string, tokenizer: TokenizerName): number {
  if (text.length === 0) return 0;
  return tokenizer === 'cl100k_base' ? cl100k.countTokens(text, AS_TEXT) : o200k.countTokens(text, AS_TEXT);
}

/**
 * Runs that the BPE pre-tokenizer keeps as ONE piece: letters (with marks), punctuation, or
 * whitespace. BPE merging is quadratic in a piece's length (a 160k-character run of one
 * letter took 58 s), so a run longer than LONG_RUN is counted in PIECE-sized parts, as BPE
 * libraries split long pre-tokens to stay linear. Digits are pre-split in threes and never
 * form long pieces. Text without such a run (all ordinary prose and code) counts exactly.
 */
const LONG_RUN_RE = /[\p{L}\p{M}]{1000,}|[^\s\p{L}\p{N}]{1000,}|\s{1000,}/gu;
/** Part size for a long run: each cut changes the count by one token at most (under 0.5% of a letter run's count; base64 tails are letter runs). */
const PIECE = 512;

/**
 * Tokens of a text: the exact count, except inside single-piece runs longer than 1,000
 * characters (base64 tails, long hashes, padding), which are counted in 512-character
 * parts so the time stays linear in the text's length.
 */
export function countTokens(text: string, tokenizer: TokenizerName = DEFAULT_TOKENIZER): number {
  if (text.length < 1000) return countExact(text, tokenizer);
  LONG_RUN_RE.lastIndex = 0;
  let n = 0;
  let from = 0;
  for (let m = LONG_RUN_RE.exec(text); m !== null; m = LONG_RUN_RE.exec(text)) {
    n += countExact(text.slice(from, m.index), tokenizer);
    const end = m.index + m[0].length;
    for (let i = m.index; i < end; ) {
      let j = Math.min(end, i + PIECE);
      // Never cut a surrogate pair.
      if (j < end && /[\uDC00-\uDFFF]/.test(text[j])) j++;
      n += countExact(text.slice(i, j), tokenizer);
      i = j;
    }
    from = end;
  }
  return n + countExact(text.slice(from), tokenizer);
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

/**
 * A token counter that remembers texts it has counted, for one run: a replay repeats most
 * turns' blocks, and the extractive summarizer of a rolling replay costs the same entries at
 * each of its summaries. Seeded with the stored count of every single-block turn: a replay
 * then re-tokenizes only summaries, placeholders and multi-block turns. The seed is read on
 * the first count, not before: a replay's ledgers over a summarizing strategy build their
 * views without counting, and seeding 100,000 turns' texts took a tenth of a second.
 */
export function memoizedCounter(count: (text: string) => number, seed: readonly Turn[] = []): (text: string) => number {
  let memo: Map<string, number> | null = null;
  return (text) => {
    if (memo === null) {
      memo = new Map<string, number>();
      for (const t of seed) if (t.blocks.length === 1) memo.set(blockToText(t.blocks[0]), t.tokenCount);
    }
    let n = memo.get(text);
    if (n === undefined) {
      n = count(text);
      memo.set(text, n);
    }
    return n;
  };
}
