/**
 * Per-model prices in USD per 1M input / output tokens, for cost stats and the watermark
 * strategy's per-session cost budget (`maxCostPerSessionUsd`).
 *
 * Sources: OpenAI's and Anthropic's public price lists (standard tier, no batch or
 * cached-input discount). A dated model name (`gpt-4o-mini-2024-07-18`) takes the price
 * of its longest listed prefix. The model-free summarizers (extractive, the truncation
 * fallback) cost 0. An UNKNOWN model is priced at `UNKNOWN_MODEL_PRICE` (gpt-4o's rate)
 * rather than 0, so a budget still bounds spending on a model this table does not know.
 * (The OpenAI-compatible summarizer prices an unlisted model on a local endpoint at 0:
 * electron/summarize/openai.ts `callCostUsd`.)
 */
export interface ModelPrice {
  /** USD per 1,000,000 input (prompt) tokens. */
  input: number;
  /** USD per 1,000,000 output (completion) tokens. */
  output: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4-turbo': { input: 10, output: 30 },
  'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  o3: { input: 2, output: 8 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  // Anthropic (via OpenAI-compatible gateways)
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4': { input: 15, output: 75 },
  // Model-free
  extractive: { input: 0, output: 0 },
  truncation: { input: 0, output: 0 },
};

/** What an unlisted model is assumed to cost: gpt-4o's list price (a deliberate overestimate for small models). */
export const UNKNOWN_MODEL_PRICE: ModelPrice = { input: 2.5, output: 10 };

/** The price of `model`: exact name, else the longest listed prefix, else UNKNOWN_MODEL_PRICE. */
export function priceOf(model: string): ModelPrice {
  if (MODEL_PRICES[model]) return MODEL_PRICES[model];
  let best: string | null = null;
  for (const name of Object.keys(MODEL_PRICES)) if (model.startsWith(name) && (best === null || name.length > best.length)) best = name;
  return best ? MODEL_PRICES[best] : UNKNOWN_MODEL_PRICE;
}

/** USD for one call: tokens in × input price + tokens out × output price, per million. */
export function costUsd(model: string, tokensIn: number, tokensOut: number): number {
  const p = priceOf(model);
  return (tokensIn * p.input + tokensOut * p.output) / 1_000_000;
}
