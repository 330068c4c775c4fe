/**
 * The projected timeline's figures (`replayPreview.<strategy>.medianMs`, goal
 * <= 16 ms at 100,000 turns), measured in a process of its own that holds only the
 * session's turn metadata, as the window's renderer does: the benchmark's own process also
 * holds the imported database's garbage and two full runs per strategy, and V8's collector
 * then charges a slider frame for a heap the window never has.
 *
 * Per strategy, from a settled heap (a full collection first: the metas' arrival and the
 * previous strategy's garbage are not charged to it): PREVIEW_WARMUP projections timed apart
 * (`firstMs`: the first ones compile the loop and the planners, and build the session's index
 * and call columns), then `runs`
 * projections back to back (`medianMs`, with the process's CPU time `cpuMedianMs`: on a
 * shared machine the wall time also counts the time other processes held the cores), then
 * `runs` whole frames as the window computes them (`frameMedianMs`: replay inputs,
 * projection, events and the priced timeline; renderer/plan/use-timeline.ts).
 *
 * `previewInChild` (bench/replay.ts) bundles this file into one module and forks it, as the
 * window's renderer runs the projection: Vite bundles shared/ into the renderer's code, it never
 * runs under tsx's transform of each file. (Under tsx, V8 compiled the window strategy's loop
 * differently in most processes: in five of six, its projection took 1.3–1.5× a reference
 * workload timed beside it, where the bundle takes 0.75–1.0×.) The child is sent the metas,
 * answers with the figures and exits. `referenceMs` says how fast the machine was meanwhile.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectTimeline } from '../shared/replay/projection.js';
import { buildTimeline, firingEvents, replayInputs } from '../shared/replay/timeline.js';
import { prepareStrategy } from '../shared/strategies/index.js';
import type { StrategyName } from '../shared/strategies/types.js';
import type { TurnMeta } from '../shared/model/turn.js';

export interface PreviewRow {
  medianMs: number | null;
  cpuMedianMs: number | null;
  frameMedianMs: number | null;
  firstMs: number[];
  /**
   * A fixed workload (`machineReference`: sums over a 100,000-entry array, no allocation), timed
   * right before and right after the strategy's projections, median of three each: 10–11 ms when
   * this 2-core machine runs at its usual speed (the first strategy's "before", taken while the
   * child is still settling, ~15 ms). The machine changes speed by up to 2x for seconds at a
   * time; this says how fast it was.
   */
  referenceMs: [number, number];
  runs: number;
  firings: number;
  status: string;
}

/** The reference workload of `referenceMs`; its median of three runs after one untimed (which compiles it), in ms. */
export function machineReference(): number {
  const n = 100_000;
  const a = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) a[i + 1] = a[i] + (i % 13);
  const times: number[] = [];
  let sink = 0;
  for (let r = -1; r < 3; r++) {
    const t = performance.now();
    for (let k = 0; k < 30; k++) for (let i = 1; i <= n; i++) sink += Math.round(a[i] - a[(i * 7) % i]) & 7;
    if (r >= 0) times.push(performance.now() - t);
  }
  if (sink < 0) throw new Error('unreachable');
  return tenth(median(times));
}

export interface PreviewRequest {
  metas: TurnMeta[];
  strategies: readonly StrategyName[];
  runs: number;
  /** A projection slower than this stops the strategy's measurement. */
  budgetMs: number;
}

/** Projections timed apart before the measured ones. */
export const PREVIEW_WARMUP = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tenth = (x: number) => Math.round(x * 10) / 10;

export async function measurePreview(req: PreviewRequest): Promise<Record<string, PreviewRow>> {
  const { metas } = req;
  const out: Record<string, PreviewRow> = {};
  // What the window's Timeline builds from a projection, on the session as imported (no usage).
  const source = { sessionId: 0, metas, usage: [], fit: null, external: [] };
  for (const strategy of req.strategies) {
    // Each strategy from a settled heap: the metas' arrival and the previous strategy's garbage
    // collected first (the child runs with --expose-gc), not charged to this one's runs.
    (globalThis as { gc?: () => void }).gc?.();
    const prepared = prepareStrategy(strategy, {});
    const refBefore = machineReference();
    const first: number[] = [];
    for (let i = 0; i < PREVIEW_WARMUP; i++) {
      const s = performance.now();
      await projectTimeline({ prepared, metas, model: { a: 0, b: 1 } });
      first.push(tenth(performance.now() - s));
    }
    const times: number[] = [];
    const cpu: number[] = [];
    const frames: number[] = [];
    let firings = 0;
    let status = 'completed';
    const deadlineSignal = () => {
      const deadline = performance.now() + req.budgetMs;
      return { get aborted() { return performance.now() > deadline; }, addEventListener() {}, removeEventListener() {} };
    };
    try {
      // The projections back to back (a slider dragged), then the frames back to back: each
      // loop's garbage is collected within it, not charged to the other's figure.
      for (let i = 0; i < req.runs; i++) {
        const s = performance.now();
        const c0 = process.cpuUsage();
        const p = await projectTimeline({ prepared, metas, model: { a: 0, b: 1 }, signal: deadlineSignal() });
        times.push(performance.now() - s);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
        // Read once, after the last: reading `firings` builds a model-free run's firing objects (the frames below do).
        if (i === req.runs - 1) firings = p.firings.length;
      }
      for (let i = 0; i < req.runs; i++) {
        const f0 = performance.now();
        const inputs = replayInputs(source);
        const live = await projectTimeline({ prepared, metas, model: inputs.model, calls: inputs.calls, signal: deadlineSignal() });
        buildTimeline({ source, inputs, prepared, live, events: firingEvents(live.firings, { lazy: true }), runId: 0, variantId: 0, status: 'completed' });
        frames.push(performance.now() - f0);
      }
    } catch {
      status = `stopped after ${req.budgetMs} ms`;
    }
    const done = times.length === req.runs && frames.length === req.runs && status === 'completed';
    out[strategy] = { medianMs: done ? tenth(median(times)) : null, cpuMedianMs: done ? tenth(median(cpu)) : null, frameMedianMs: done ? tenth(median(frames)) : null, firstMs: first, referenceMs: [refBefore, machineReference()], runs: times.length, firings, status };
  }
  return out;
}

/** Runs `measurePreview` in a child process, on this file bundled into one module, holding only the metas it is sent. */
export async function previewInChild(req: PreviewRequest): Promise<Record<string, PreviewRow>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-preview-'));
  try {
    const outfile = path.join(dir, 'replay-preview.mjs');
    // Loaded here, not imported: the child's bundle leaves esbuild out (it never builds).
    const { build } = await import('esbuild');
    await build({ entryPoints: [fileURLToPath(import.meta.url)], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['esbuild'], logLevel: 'warning' });
    return await runChild(outfile, req);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(file: string, req: PreviewRequest): Promise<Record<string, PreviewRow>> {
  return new Promise((resolve, reject) => {
    const child = fork(file, ['--child'], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answered = false;
    child.on('message', (m: { ok: true; rows: Record<string, PreviewRow> } | { ok: false; error: string }) => {
      answered = true;
      if (m.ok) resolve(m.rows);
      else reject(new Error(`preview child: ${m.error}`));
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!answered) reject(new Error(`preview child exited with code ${code} before answering`));
    });
    child.send(req);
  });
}

if (process.argv.includes('--child') && process.send) {
  process.once('message', (req: PreviewRequest) => {
    measurePreview(req).then(
      (rows) => process.send!({ ok: true, rows }, () => process.exit(0)),
      (e: unknown) => process.send!({ ok: false, error: e instanceof Error ? e.message : String(e) }, () => process.exit(1)),
    );
  });
}
