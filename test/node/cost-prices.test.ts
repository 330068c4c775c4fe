/** The one price table (shared/cost/prices.ts): its invariants, name matching, unlisted models, user prices. */
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_PRICING_URL, costUsd, MODEL_PRICES, OPENAI_PRICING_URL, priceOf, userPricesSchema } from '../../shared/cost/prices.js';

const rows = Object.entries(MODEL_PRICES);

describe('the price table', () => {
  it('dates every entry and names the provider pricing page it was read from', () => {
    expect(rows.length).toBeGreaterThan(20);
    for (const [name, p] of rows) {
      expect(p.asOf, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(Number.isNaN(Date.parse(p.asOf)), name).toBe(false);
      expect(p.source, name).toBe(p.provider === 'anthropic' ? ANTHROPIC_PRICING_URL : OPENAI_PRICING_URL);
      for (const r of [p.input, p.output, p.cacheWrite5m, p.cacheWrite1h, p.cacheRead]) expect(r, name).toBeGreaterThan(0);
    }
  });

  it('Anthropic rows follow the published multipliers: 5m write 1.25×, 1h write 2×, read 0.1× input', () => {
    const anthropic = rows.filter(([, p]) => p.provider === 'anthropic');
    expect(anthropic.length).toBeGreaterThanOrEqual(10);
    for (const [name, p] of anthropic) {
      expect(p.cacheWrite5m / p.input, name).toBeCloseTo(1.25, 12);
      expect(p.cacheWrite1h / p.input, name).toBeCloseTo(2, 12);
      expect(p.cacheRead / p.input, name).toBeCloseTo(0.1, 12);
    }
  });

  it('OpenAI rows charge no write surcharge and never more for cached input than for input', () => {
    for (const [name, p] of rows.filter(([, q]) => q.provider === 'openai')) {
      expect(p.cacheWrite5m, name).toBe(p.input);
      expect(p.cacheWrite1h, name).toBe(p.input);
      expect(p.cacheRead, name).toBeLessThanOrEqual(p.input);
    }
    expect(priceOf('gpt-4o')).toMatchObject({ input: 2.5, cacheRead: 1.25, output: 10 });
    expect(priceOf('gpt-4.1-mini')).toMatchObject({ input: 0.4, cacheRead: 0.1, output: 1.6 });
  });

  it("claude-opus-4-6's rates reproduce ccusage's $9.83 for the spotter fixture's token counts at the 5-minute write rate", () => {
    const p = priceOf('claude-opus-4-6');
    expect(p).toMatchObject({ input: 5, output: 25, cacheWrite5m: 6.25, cacheWrite1h: 10, cacheRead: 0.5, provider: 'anthropic', known: true });
    // 180 × 5 + 10,458 × 25 + 349,474 × 6.25 + 14,771,617 × 0.5 = 9,832,371 µ$
    const usd = (180 * p.input + 10_458 * p.output + 349_474 * p.cacheWrite5m + 14_771_617 * p.cacheRead) / 1e6;
    expect(usd).toBeCloseTo(9.832371, 9);
    expect(usd.toFixed(2)).toBe('9.83');
  });

  it('knows every Anthropic and OpenAI model the fixtures name, dated or not', () => {
    for (const model of ['claude-3-5-sonnet-20241022', 'claude-haiku-4-5-20251001', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-sonnet-4-20250514', 'claude-sonnet-4-5-20250929', 'gpt-4o']) {
      expect(priceOf(model), model).toMatchObject({ known: true, from: 'table' });
    }
    expect(priceOf('claude-sonnet-4-20250514').matched).toBe('claude-sonnet-4');
    expect(priceOf('claude-opus-4-1-20250805').matched).toBe('claude-opus-4-1');
    expect(priceOf('gpt-4o-mini-2024-07-18').matched).toBe('gpt-4o-mini');
    expect(priceOf('gpt-4o-2024-05-13')).toMatchObject({ matched: 'gpt-4o-2024-05-13', input: 5 });
    expect(priceOf('anthropic/claude-sonnet-4-5').matched).toBe('claude-sonnet-4-5');
  });

  it('does not guess from a bare prefix: a newer name is unlisted, not priced as its elder', () => {
    expect(priceOf('claude-opus-4-8')).toMatchObject({ known: false, from: 'unlisted', input: 0, output: 0 });
    expect(priceOf('gpt-4o-audio-preview').known).toBe(false);
  });
});

describe('unlisted, model-free and user-priced models', () => {
  it('an unlisted (local) model costs 0 and is flagged unknown; the model-free summarizers cost 0 and are known', () => {
    for (const model of ['llama3.1:8b', 'meta-llama/llama-4-maverick', 'openai/openrouter-llama-4-maverick', '']) {
      expect(priceOf(model), model).toMatchObject({ known: false, from: 'unlisted', provider: null, input: 0, output: 0, cacheRead: 0 });
      expect(costUsd(model, 1_000_000, 1_000_000)).toBe(0);
    }
    expect(priceOf('extractive')).toMatchObject({ known: true, from: 'model-free', input: 0 });
    expect(priceOf('truncation')).toMatchObject({ known: true, from: 'model-free', output: 0 });
  });

  it('a user price wins over the table and prices an unlisted model; missing cache rates follow the provider', () => {
    const user = userPricesSchema.parse({ 'llama3.1:8b': { input: 0.1, output: 0.2 }, 'gpt-4o': { input: 1, output: 2, cacheRead: 0.25 }, 'my-claude': { input: 4, output: 20, provider: 'anthropic' } });
    expect(priceOf('llama3.1:8b', user)).toMatchObject({ known: true, from: 'user', input: 0.1, cacheWrite5m: 0.1, cacheRead: 0.1, provider: null });
    expect(priceOf('gpt-4o-2024-08-06', user)).toMatchObject({ from: 'user', matched: 'gpt-4o', input: 1, cacheRead: 0.25 });
    expect(priceOf('my-claude', user)).toMatchObject({ cacheWrite5m: 5, cacheWrite1h: 8, provider: 'anthropic' });
    expect(priceOf('my-claude', user).cacheRead).toBeCloseTo(0.4, 12);
    expect(costUsd('llama3.1:8b', 1_000_000, 1_000_000, user)).toBeCloseTo(0.3, 12);
  });

  it('the settings schema rejects negative or missing rates and unknown fields', () => {
    expect(userPricesSchema.safeParse({ m: { input: -1, output: 1 } }).success).toBe(false);
    expect(userPricesSchema.safeParse({ m: { input: 1 } }).success).toBe(false);
    expect(userPricesSchema.safeParse({ m: { input: 1, output: 1, cacheWrite: 2 } }).success).toBe(false);
    expect(userPricesSchema.safeParse({ m: { input: 1, output: 1, provider: 'google' } }).success).toBe(false);
    expect(userPricesSchema.safeParse({ '': { input: 1, output: 1 } }).success).toBe(false);
    expect(userPricesSchema.safeParse({ m: { input: 1, output: 1, cacheRead: 0.1, provider: 'openai' } }).success).toBe(true);
  });
});
