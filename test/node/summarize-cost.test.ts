/** The OpenAI-compatible summarizer prices its calls from the one table in shared/strategies/prices.ts. */
import { describe, expect, it } from 'vitest';
import { callCostUsd } from '../../electron/summarize/openai.js';

describe('cost of a summarizer call', () => {
  it('prices listed models from the shared table on any endpoint', () => {
    expect(callCostUsd('http://127.0.0.1:8000/v1', 'gpt-4o-mini', 10_000, 500)).toBeCloseTo(0.0018, 12);
    expect(callCostUsd('https://api.openai.com/v1', 'gpt-4o-mini-2024-07-18', 10_000, 500)).toBeCloseTo(0.0018, 12);
  });

  it('charges nothing for an unlisted model on a local server, and the overestimate on api.openai.com', () => {
    expect(callCostUsd('http://127.0.0.1:11434/v1', 'llama3.1:8b', 10_000, 500)).toBe(0);
    expect(callCostUsd('https://api.openai.com/v1', 'some-new-model', 1_000_000, 0)).toBe(2.5);
  });
});
