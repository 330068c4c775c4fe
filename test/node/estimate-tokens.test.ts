/**
 * The extractive summarizer's token estimate (shared/summarize/extractive.ts `estimateTokens`)
 * is one scan of the character codes; its rule is the regular expression below (a piece per
 * match, two for a piece over 9 characters, +10%). The scan must count exactly what the
 * expression counts: on every text of every real fixture file, and on generated strings
 * dense in the cases the expression decides by backtracking (upper-case runs before
 * lower-case letters, digit runs, non-ASCII letters and spaces, surrogate pairs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../shared/summarize/extractive.js';
import { FIXTURES, fixtureNames } from '../helpers/fixture-sessions.js';

/** The rule, as it was written before the scan. */
function byExpression(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d{1,3}|[^\sA-Za-z\d]/g)) n += m[0].length > 9 ? 2 : 1;
  return Math.ceil(n * 1.1);
}

describe('estimateTokens', () => {
  it('counts what its expression counts on every real fixture file (each line, and each file whole)', () => {
    let lines = 0;
    for (const name of fixtureNames()) {
      const text = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
      expect(estimateTokens(text), name).toBe(byExpression(text));
      for (const line of text.split('\n')) {
        lines++;
        if (estimateTokens(line) !== byExpression(line)) expect([name, line.slice(0, 200), estimateTokens(line)]).toEqual([name, line.slice(0, 200), byExpression(line)]);
      }
    }
    expect(lines).toBeGreaterThan(1000);
  });

  it('counts what its expression counts on 20,000 generated strings dense in its edge cases', () => {
    const alphabet = ['A', 'B', 'Z', 'a', 'b', 'z', '0', '5', '9', ' ', '\t', '\n', '\u00a0', '\u2003', '\u3000', '\ufeff', 'é', 'Ω', '中', '😀', '_', '-', '.', '/', '`', 'ABCDEFGHIJK', 'abcdefghijkl', '1234567', 'HTTPServer', 'parseJSON'];
    let seed = 7;
    const rand = (k: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % k;
    };
    for (let s = 0; s < 20_000; s++) {
      let text = '';
      const parts = 1 + rand(24);
      for (let p = 0; p < parts; p++) text += alphabet[rand(alphabet.length)];
      if (estimateTokens(text) !== byExpression(text)) expect([text, estimateTokens(text)]).toEqual([text, byExpression(text)]);
    }
    // 'HTTP' + 'Server'; 'ABCDEFGHIJK' (11 characters: 2) + 'Lm'.
    expect([estimateTokens(''), estimateTokens('   '), estimateTokens('HTTPServer'), estimateTokens('ABCDEFGHIJKLm')]).toEqual([0, 0, 3, 4]);
  });
});
