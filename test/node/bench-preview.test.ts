/**
 * `npm run bench`'s projected-timeline figures come from a child process (bench/replay-preview.ts)
 * that holds only the session's metas: it runs this file bundled into one module (as the
 * renderer runs the projection), measures, answers and exits. A
 * smoke test on a small generated session, so a broken child shows here and not first in a
 * benchmark run.
 */
import { describe, expect, it } from 'vitest';
import { PREVIEW_WARMUP, previewInChild } from '../../bench/replay-preview.js';
import { syntheticSessionMetas } from '../../bench/plan.js';

describe('the projected-timeline benchmark child', () => {
  it('measures each strategy it is sent, in its own process, and reports the projection and the whole frame', { timeout: 60_000 }, async () => {
    const rows = await previewInChild({ metas: syntheticSessionMetas(2000), strategies: ['window', 'dag'], runs: 3, budgetMs: 30_000 });
    expect(Object.keys(rows)).toEqual(['window', 'dag']);
    for (const r of Object.values(rows)) {
      expect(r.status).toBe('completed');
      expect(r.runs).toBe(3);
      expect(r.firstMs).toHaveLength(PREVIEW_WARMUP);
      expect(r.medianMs).toBeGreaterThan(0);
      expect(r.frameMedianMs).toBeGreaterThan(0);
      expect(r.firings).toBeGreaterThan(0);
      expect(r.referenceMs).toHaveLength(2);
      for (const ms of r.referenceMs) expect(ms).toBeGreaterThan(0);
    }
  });
});
