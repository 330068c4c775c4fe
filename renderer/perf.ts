/**
 * In-page performance probes read by `npm run bench:ui`: plan durations while a slider
 * moves and the first paint of the turn list. Plain data on `window`, no behaviour.
 */
export interface StudioPerf {
  /** Milliseconds of each planFor call in the window (most recent last, bounded). */
  planMs: number[];
  /** performance.now() when the turn list first painted rows. */
  turnListFirstPaint: number | null;
  /** Plans committed to the screen (a slider update that was planned but never shown does not count). */
  planCommits: number;
  /**
   * The variant table's latest list: rows; ms from the render that received it to the DOM
   * committed (`commitMs`, React's work) and to the frame that showed it (`paintMs`, which
   * includes waiting for the next frame).
   */
  variantTablePaint: { rows: number; commitMs: number; paintMs: number } | null;
}

declare global {
  interface Window {
    __studioPerf?: StudioPerf;
  }
}

const perf: StudioPerf = { planMs: [], turnListFirstPaint: null, planCommits: 0, variantTablePaint: null };
window.__studioPerf = perf;

export function recordPlanMs(ms: number): void {
  perf.planMs.push(ms);
  if (perf.planMs.length > 2000) perf.planMs.splice(0, perf.planMs.length - 2000);
}

export function recordTurnListFirstPaint(): void {
  if (perf.turnListFirstPaint !== null) return;
  // After the browser has painted the frame with the rows, not when React committed them.
  requestAnimationFrame(() => {
    if (perf.turnListFirstPaint !== null) return;
    perf.turnListFirstPaint = performance.now();
    performance.mark('turn-list-first-paint');
  });
}

export function recordPlanCommit(): void {
  perf.planCommits++;
}

/**
 * The variant table committed a new list whose render started at `renderStart`: the time
 * to the DOM commit and to the painted frame (requestAnimationFrame runs before the paint, the task it queues
 * runs after it).
 */
export function recordVariantTablePaint(rows: number, renderStart: number): void {
  // Called from a layout effect: the DOM holds the rows now.
  const commitMs = performance.now() - renderStart;
  requestAnimationFrame(() => {
    setTimeout(() => {
      perf.variantTablePaint = { rows, commitMs, paintMs: performance.now() - renderStart };
    }, 0);
  });
}
