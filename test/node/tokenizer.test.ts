/**
 * The token count (electron/tokenizer.ts): exact on ordinary text, linear on the long
 * single-piece runs real transcripts carry (base64 of zero bytes, padding, long hashes),
 * where plain BPE is quadratic. Times are in `npm run bench -- --only tokenizer`
 * (`longRunRatioToCorpus`), never asserted here.
 */
import fs from 'node:fs';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, memoizedCounter } from '../../electron/tokenizer.js';
import type { Turn } from '../../shared/model/turn.js';
import { fixtureFiles } from '../helpers/fixture-sessions.js';

const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Every line of every real fixture transcript. */
function fixtureLines(): string[] {
  return fixtureFiles().flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l.length > 0));
}

describe('countTokens', () => {
  it('is the exact BPE count on every line of every fixture transcript', () => {
    const lines = fixtureLines();
    expect(lines.length).toBeGreaterThan(1000);
    let ours = 0;
    let exact = 0;
    for (const l of lines) {
      ours += countTokens(l);
      exact += o200k.countTokens(l, AS_TEXT);
    }
    expect(ours).toBe(exact);
  });

  it('differs from the exact count by at most one token per 512-character part of a long run', () => {
    // Each long run here is ONE pre-token for o200k (a letter run, a punctuation run, a space
    // run), small enough that the exact quadratic count still finishes. A cut can change the
    // count by one token at most: for letter runs (base64 tails) that is within 0.5%; for a
    // run of '=' (64 characters per token) it is 2 tokens in 98.
    const cases = [
      { text: 'A'.repeat(20_000), run: 20_000, letters: true },
      { text: `data:image/png;base64,iVBORw0KGgo${'A'.repeat(12_000)}ElFTkSuQmCC`, run: 12_022, letters: true },
      { text: `mixed ${'Ab'.repeat(4_000)} tail`, run: 8_000, letters: true },
      { text: `x = "${'='.repeat(6_000)}"`, run: 6_001, letters: false },
      { text: `a${' '.repeat(6_000)}b`, run: 6_000, letters: false },
    ];
    for (const c of cases) {
      const exact = o200k.countTokens(c.text, AS_TEXT);
      const diff = Math.abs(countTokens(c.text) - exact);
      expect(diff).toBeLessThanOrEqual(Math.ceil(c.run / 512) - 1);
      if (c.letters) expect(diff / exact).toBeLessThanOrEqual(0.005);
    }
  });

  it('counts a 300,000-character one-letter message and a 5 MB run, never cutting a surrogate pair', () => {
    // 'A' encodes 8 characters per token in o200k: 300,000 / 8.
    expect(countTokens('A'.repeat(300_000))).toBe(37_500);
    expect(countTokens('A'.repeat(5_000_000))).toBe(625_000);
    // A run of astral letters (two UTF-16 units each): cuts land between pairs, so every piece is valid text.
    const astral = '𝐀'.repeat(3_000);
    const exact = o200k.countTokens(astral, AS_TEXT);
    expect(Math.abs(countTokens(astral) - exact) / exact).toBeLessThanOrEqual(0.005);
  });
});

describe('memoizedCounter', () => {
  const turn = (id: number, text: string, tokenCount: number): Turn => ({ id, sessionId: 1, position: id, role: 'user', blocks: [{ type: 'text', text }], charCount: text.length, tokenCount, timestamp: null, model: null, agentId: null, sourceIds: [] });

  it('counts each text once, takes a single-block turn\'s stored count as its text\'s, and reads the seed only at the first count', () => {
    const seed = [turn(0, 'stored text', 99), turn(1, 'other', 7)];
    let seedReads = 0;
    const watched = new Proxy(seed, {
      get(target, key, receiver) {
        seedReads++;
        return Reflect.get(target, key, receiver);
      },
    });
    let counted = 0;
    const count = memoizedCounter((t) => (counted++, countTokens(t)), watched);
    expect(seedReads).toBe(0);
    expect(count('stored text')).toBe(99);
    expect(seedReads).toBeGreaterThan(0);
    expect(counted).toBe(0);
    const reads = seedReads;
    expect(count('hello world')).toBe(countTokens('hello world'));
    expect(count('hello world')).toBe(countTokens('hello world'));
    expect(counted).toBe(1);
    expect(seedReads).toBe(reads);
  });
});
