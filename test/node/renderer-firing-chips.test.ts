/**
 * The Timeline panel's list of firings (renderer/plan/firing-chips.ts): a window or masking
 * replay of a long session fires at every call, so the list is capped and the chart's
 * markers reach the rest; the selected firing is always listed.
 */
import { describe, expect, it } from 'vitest';
import { chipEvents, MAX_FIRING_CHIPS } from '../../renderer/plan/firing-chips.js';

const events = (n: number) => Array.from({ length: n }, (_, i) => ({ call: i * 2 }));

describe('firing chips', () => {
  it('lists every firing up to the cap', () => {
    const few = events(MAX_FIRING_CHIPS);
    expect(chipEvents(few, null)).toBe(few);
  });

  it('lists the first MAX_FIRING_CHIPS of 49,993 firings, plus the selected one beyond them', () => {
    const many = events(49_993);
    expect(chipEvents(many, null).map((e) => e.call)).toEqual(events(MAX_FIRING_CHIPS).map((e) => e.call));
    // Call 50,000 is firing 25,000: listed after the first ones.
    const shown = chipEvents(many, 50_000);
    expect(shown).toHaveLength(MAX_FIRING_CHIPS + 1);
    expect(shown[MAX_FIRING_CHIPS]).toEqual({ call: 50_000 });
    // A selected call inside the first ones, or one that is no firing, adds nothing.
    expect(chipEvents(many, 10)).toHaveLength(MAX_FIRING_CHIPS);
    expect(chipEvents(many, 50_001)).toHaveLength(MAX_FIRING_CHIPS);
  });
});
