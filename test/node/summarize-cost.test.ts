/** The OpenAI-compatible summarizer prices its calls from the one table in shared/cost/prices.ts. */
import { describe, expect, it } from 'vitest';
import { callCostUsd } from '../../electron/summarize/openai.js';

describe('cost of a summarizer call', () => {
  it('prices listed models from the shared table on any endpoint', () => {
    expect(callCostUsd('gpt-4o-mini', 10_000, 500)).toBeCloseTo(0.0018, 12);
    expect(callCostUsd('gpt-4o-mini-2024-07-18', 10_000, 500)).toBeCloseTo(0.0018, 12);
  });

  it('charges nothing for a model the table does not list, local or not (unlisted models cost 0 unless the user sets a price)', () => {
    expect(callCostUsd('llama3.1:8b', 10_000, 500)).toBe(0);
    expect(callCostUsd('some-new-model', 1_000_000, 0)).toBe(0);
  });
});
