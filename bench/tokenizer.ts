/**
 * Tokenizer throughput: our tokenizer (gpt-tokenizer, electron/tokenizer.ts, o200k_base)
 * against `tiktoken` (the WASM build of OpenAI's tokenizer) on the same text in the same
 * run. The text is the real transcripts in test/fixtures/<format>/, cut into records the way
 * the importer counts them (one count per block), repeated up to the target size.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { get_encoding } from 'tiktoken';
import { countTokens } from '../electron/tokenizer.js';

export interface TokenizerBenchResult {
  /** gpt-tokenizer throughput (tokens/s). */
  tokensPerSecond: number;
  tiktokenTokensPerSecond: number;
  /** ours / tiktoken throughput (> 1: faster). */
  ratioToTiktoken: number;
  /** Token count of the corpus (identical for both when `countsMatch`). */
  tokens: number;
  chars: number;
  countsMatch: boolean;
  /**
   * A 5 MB run of one letter (a base64 tail of zero bytes) against the corpus, characters
   * per millisecond, as a ratio (≥ 1: the long run counts at least as fast per character as
   * ordinary transcript text). BPE alone is quadratic on such a run.
   */
  longRunRatioToCorpus: number;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURES = path.join(ROOT, 'test/fixtures');

function fixtureRecords(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(jsonl|json|traj)$/.test(e.name)) for (const line of fs.readFileSync(p, 'utf8').split('\n')) if (line.length > 0) out.push(line);
    }
  };
  // The real transcripts only (not the hand-written codex/ rollout): the corpus the figures were measured on.
  for (const format of ['claude-code', 'openai', 'openhands', 'swe-agent']) if (fs.existsSync(path.join(FIXTURES, format))) walk(path.join(FIXTURES, format));
  if (out.length === 0) out.push('The quick brown fox jumps over the lazy dog; fn main() { println!("{}", 42); } — é ü 日本語');
  return out;
}

/** Corpus of about `targetChars` characters, as per-record strings. */
export function tokenizerCorpus(targetChars: number): string[] {
  const records = fixtureRecords();
  const out: string[] = [];
  let chars = 0;
  for (let i = 0; chars < targetChars; i++) {
    const r = records[i % records.length];
    out.push(r);
    chars += r.length;
  }
  return out;
}

/** Best of `rounds` timings (ms) of fn: throughput is a capability, not an average of noise. */
function bestMs(rounds: number, fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

export function benchTokenizer(opts: { chars?: number; rounds?: number } = {}): TokenizerBenchResult {
  const corpus = tokenizerCorpus(opts.chars ?? 8_000_000);
  const rounds = opts.rounds ?? 3;
  const enc = get_encoding('o200k_base');
  try {
    let ours = 0;
    let theirs = 0;
    // Warm-up (JIT, the WASM instance, gpt-tokenizer's caches) on a slice.
    for (const r of corpus.slice(0, 200)) {
      countTokens(r);
      enc.encode(r, [], []);
    }
    const oursMs = bestMs(rounds, () => {
      ours = 0;
      for (const r of corpus) ours += countTokens(r);
    });
    const theirsMs = bestMs(rounds, () => {
      theirs = 0;
      // Special-token strings in transcripts are text, as in electron/tokenizer.ts.
      for (const r of corpus) theirs += enc.encode(r, [], []).length;
    });
    const chars = corpus.reduce((n, r) => n + r.length, 0);
    const longRun = 'A'.repeat(5_000_000);
    const longRunMs = bestMs(rounds, () => countTokens(longRun));
    const tokensPerSecond = Math.round((ours / oursMs) * 1000);
    const tiktokenTokensPerSecond = Math.round((theirs / theirsMs) * 1000);
    return {
      tokensPerSecond,
      tiktokenTokensPerSecond,
      ratioToTiktoken: Math.round((tokensPerSecond / tiktokenTokensPerSecond) * 100) / 100,
      tokens: ours,
      chars,
      countsMatch: ours === theirs,
      longRunRatioToCorpus: Math.round((longRun.length / longRunMs / (chars / oursMs)) * 100) / 100,
    };
  } finally {
    enc.free();
  }
}
