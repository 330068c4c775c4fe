/**
 * `npm run bench:ui [-- --turns N] [--json]`: the window under load, in browser mode.
 *
 * 1. Generates a deterministic 100,000-turn OpenAI-format transcript (user requests,
 *    assistant tool calls, tool results, answers) and imports it through the server's
 *    `importText` on a temporary database, exactly as the window's file input does.
 * 2. Drives Debian's Chromium with Playwright and measures, in the page:
 *    - first paint of the turn list (navigation start -> first rows painted; target <= 1.5 s);
 *    - frames per second while dragging a parameter slider (a requestAnimationFrame counter
 *      while the mouse moves the thumb at 60 events/s; every move re-plans in the window)
 *      and the planner's own time per move;
 *    - panning a ~2,000-node DAG: frames per second and dropped frames (frame gaps beyond
 *      one 60 Hz interval), at the automatic fit and with every node in view.
 * Prints the figures; `--json` prints `{"ui": {...}}` on stdout instead.
 * Needs `npm run build` first (dist/electron/serve.cjs and dist/renderer/).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from '@playwright/test';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const FRAME_MS = 1000 / 60;

interface Args {
  turns: number;
  json: boolean;
  dagNodes: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { turns: 100_000, json: false, dagNodes: 2000 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') args.json = true;
    else if (argv[i] === '--turns') args.turns = Number(argv[++i]);
    else if (argv[i] === '--dag-nodes') args.dagNodes = Number(argv[++i]);
  }
  if (!Number.isInteger(args.turns) || args.turns < 100) throw new Error('--turns must be a whole number >= 100');
  return args;
}

const log = (json: boolean, line: string) => {
  // Progress to stderr: with --json, stdout carries only the result object.
  if (json) process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
};

// ---- the transcript -------------------------------------------------------------------

const WORDS = 'the a to of and in file test function error update config build run check value index parser session token module import export return type interface branch commit merge review request response cache worker thread query schema table column migration render component state hook effect memo list item node edge graph layout'.split(' ');
const TOOLS = ['bash', 'read_file', 'write_file', 'search', 'list_dir', 'run_tests'];

/** A deterministic OpenAI messages transcript of `turns` messages with paired tool calls. */
export function generateTranscript(turns: number): string {
  let seed = 0x9e3779b9;
  const rand = () => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return seed / 0x100000000;
  };
  const sentence = (words: number) => {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
    return out.join(' ');
  };
  const messages: unknown[] = [{ role: 'system', content: `You are a coding agent. ${sentence(60)}` }];
  let call = 0;
  while (messages.length < turns) {
    messages.push({ role: 'user', content: `Please ${sentence(8 + Math.floor(rand() * 40))}.` });
    const calls = 1 + Math.floor(rand() * 3);
    for (let c = 0; c < calls && messages.length + 2 <= turns; c++) {
      const id = `call_${++call}`;
      const name = TOOLS[Math.floor(rand() * TOOLS.length)];
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify({ path: `src/${sentence(2).replace(/ /g, '/')}.ts`, query: sentence(4) }) } }] });
      const lines = 2 + Math.floor(rand() * (rand() < 0.1 ? 60 : 12));
      const body: string[] = [];
      for (let l = 0; l < lines; l++) body.push(`${l + 1}: ${sentence(6 + Math.floor(rand() * 10))}`);
      messages.push({ role: 'tool', tool_call_id: id, content: body.join('\n') });
    }
    if (messages.length < turns) messages.push({ role: 'assistant', content: `${sentence(10 + Math.floor(rand() * 60))}.` });
  }
  return JSON.stringify({ messages: messages.slice(0, turns) });
}

// ---- the server ------------------------------------------------------------------------

interface Server {
  origin: string;
  token: string;
  url: string;
  call<T>(op: string, input: unknown): Promise<T>;
  stop(): Promise<void>;
}

async function startServer(dbPath: string): Promise<Server> {
  const serve = path.join(ROOT, 'dist/electron/serve.cjs');
  if (!fs.existsSync(serve) || !fs.existsSync(path.join(ROOT, 'dist/renderer/index.html'))) throw new Error('dist/ is missing: run `npm run build` first');
  const child = spawn(process.execPath, [serve, '--port', '0', '--db', dbPath, '--no-demo'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  const m = /^Compaction Studio at (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/.exec(line);
  if (!m) throw new Error(`unexpected first line from serve: ${line}`);
  const [, origin, token] = m;
  return {
    origin,
    token,
    url: `${origin}/#token=${token}`,
    async call<T>(op: string, input: unknown): Promise<T> {
      const res = await fetch(`${origin}/api/${op}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
      const body = (await res.json()) as { ok: boolean; value: T; error?: { message: string } };
      if (!body.ok) throw new Error(`${op}: ${body.error?.message}`);
      return body.value;
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

// ---- in-page measurement ---------------------------------------------------------------

interface FrameStats {
  fps: number;
  frames: number;
  durationMs: number;
  droppedFrames: number;
  longestFrameMs: number;
}

// In-page code goes in as source text: tsx's transform wraps named functions in a
// `__name` helper that does not exist inside the page.
const START_FRAMES = `(() => {
  const state = { stop: false, times: [] };
  window.__bench = state;
  const tick = (t) => { if (state.stop) return; state.times.push(t); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})()`;
const STOP_FRAMES = `(() => { window.__bench.stop = true; return window.__bench.times; })()`;

/**
 * A slider drag driven inside the page: on every animation frame the range input takes
 * the next value and fires `input`, as a pointer moving at the display's rate would (CDP
 * mouse events cannot keep that pace: each waits for the renderer's acknowledgement).
 * Every update re-plans the whole session in the window; whether the frames keep coming
 * at 60 per second says whether an update fits in one frame.
 */
const DRIVE_SLIDER = `(async ([testId, steps]) => {
  const input = document.querySelector('[data-testid="' + testId + '"]');
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  const min = Number(input.min), max = Number(input.max);
  const commitsBefore = window.__studioPerf.planCommits;
  const times = [];
  await new Promise((resolve) => {
    let i = 0;
    const frame = (t) => {
      times.push(t);
      if (i > steps) return resolve();
      // Across and back.
      const f = i <= steps / 2 ? (2 * i) / steps : 2 - (2 * i) / steps;
      setValue.call(input, String(min + (max - min) * f));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      i++;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  // The last update's plan lands a frame or two later.
  await new Promise((r) => setTimeout(r, 300));
  return { times, updates: steps + 1, planCommits: window.__studioPerf.planCommits - commitsBefore };
})`;

/** Starts counting animation frames in the page (intervals between consecutive frames). */
async function startFrames(page: Page): Promise<void> {
  await page.evaluate(START_FRAMES);
}

async function stopFrames(page: Page): Promise<FrameStats> {
  return frameStats((await page.evaluate(STOP_FRAMES)) as number[]);
}

/** Moves the mouse from a to b in `moves` steps at 60 events per second (a human drag), button held. */
async function drag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }, moves: number): Promise<void> {
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  const started = performance.now();
  for (let i = 1; i <= moves; i++) {
    const f = i / moves;
    await page.mouse.move(from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f);
    const due = started + i * FRAME_MS;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await page.mouse.up();
}

/**
 * Waits until an expression is truthy in the page. Not waitForFunction: under the window's
 * strict CSP (no eval) Playwright cannot compile a string predicate in the page, while a
 * plain evaluate goes through the debugger protocol. The time is taken in the page anyway.
 */
async function pollPage(page: Page, expression: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

interface SliderResult extends FrameStats {
  param: string;
  /** Values set on the slider, one per frame. */
  updates: number;
  /** Distinct plans that reached the screen during the drag. */
  planCommits: number;
  planMedianMs: number;
  planP95Ms: number;
}

function frameStats(times: number[]): FrameStats {
  let dropped = 0;
  let longest = 0;
  for (let i = 1; i < times.length; i++) {
    const gap = times[i] - times[i - 1];
    longest = Math.max(longest, gap);
    dropped += Math.max(0, Math.round(gap / FRAME_MS) - 1);
  }
  const durationMs = times.length > 1 ? times[times.length - 1] - times[0] : 0;
  return { fps: durationMs > 0 ? ((times.length - 1) * 1000) / durationMs : 0, frames: times.length, durationMs, droppedFrames: dropped, longestFrameMs: longest };
}

async function measureSlider(page: Page, param: string, steps: number): Promise<SliderResult> {
  await page.getByTestId(`param-${param}`).scrollIntoViewIfNeeded();
  await page.evaluate('window.__studioPerf.planMs.length = 0');
  const run = (await page.evaluate(`${DRIVE_SLIDER}(${JSON.stringify([`param-${param}`, steps])})`)) as { times: number[]; updates: number; planCommits: number };
  const planMs = (await page.evaluate('[...window.__studioPerf.planMs]')) as number[];
  return { param, ...frameStats(run.times), updates: run.updates, planCommits: run.planCommits, planMedianMs: median(planMs), planP95Ms: percentile(planMs, 0.95) };
}

async function measurePan(page: Page, moves: number): Promise<FrameStats> {
  const pane = page.locator('.react-flow__pane');
  const box = (await pane.boundingBox())!;
  // Grab empty canvas right of the leaf column, clear of the controls (top left), the
  // legend (top) and the minimap (bottom right, which would fling the view if dragged).
  const x = box.x + box.width * 0.62;
  const top = { x, y: box.y + box.height * 0.25 };
  const bottom = { x: x - 40, y: box.y + box.height * 0.7 };
  await startFrames(page);
  for (let i = 0; i < 2; i++) {
    await drag(page, bottom, top, moves / 4);
    await drag(page, top, bottom, moves / 4);
  }
  return stopFrames(page);
}

// ---- main -------------------------------------------------------------------------------

export async function benchUi(args: Args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ui-'));
  const server = await startServer(path.join(dir, 'studio.db'));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    let t0 = performance.now();
    const text = generateTranscript(args.turns);
    const generateMs = performance.now() - t0;
    t0 = performance.now();
    const report = await server.call<{ sessions: Array<{ id: number; turns: number; tokens: number }> }>('importText', { fileName: `bench-${args.turns}.json`, text });
    const importMs = performance.now() - t0;
    const session = report.sessions[0];
    log(args.json, `bench:ui  ${session.turns.toLocaleString('en-US')} turns, ${session.tokens.toLocaleString('en-US')} tokens (${(text.length / 1e6).toFixed(1)} MB JSON generated in ${(generateMs / 1000).toFixed(1)} s, imported through importText in ${(importMs / 1000).toFixed(1)} s)`);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
    // First paint: three fresh page loads (the first also warms the server's page cache).
    const paints: number[] = [];
    for (let i = 0; i < 3; i++) {
      const page = await context.newPage();
      await page.goto(`${server.url}&session=${session.id}`);
      await pollPage(page, 'window.__studioPerf && window.__studioPerf.turnListFirstPaint !== null', 60_000);
      paints.push((await page.evaluate('window.__studioPerf.turnListFirstPaint')) as number);
      // Let this load finish its heavier reads before the next one starts: the server answers
      // one request at a time, and a leftover 100,000-turn metas read would delay the next paint.
      await page.getByTestId('plan-stats').waitFor({ timeout: 60_000 });
      if (i < 2) await page.close();
    }
    const page = context.pages()[context.pages().length - 1];
    log(args.json, `  first paint of the turn list   ${(median(paints) / 1000).toFixed(2)} s median (${paints.map((p) => (p / 1000).toFixed(2)).join(', ')} s)   target <= 1.5 s`);

    // The plan needs the metas of all turns: wait until the window has planned once.
    await page.getByTestId('plan-stats').waitFor({ timeout: 60_000 });
    await startFrames(page);
    await page.waitForTimeout(1000);
    const idle = await stopFrames(page);
    log(args.json, `  idle frame rate                ${idle.fps.toFixed(1)} fps (the headless compositor's ceiling)`);

    const sliders: SliderResult[] = [];
    for (const param of ['freshTailCount', 'leafChunkTokens']) {
      const r = await measureSlider(page, param, 240);
      sliders.push(r);
      log(
        args.json,
        `  slider drag ${param.padEnd(18)} ${r.fps.toFixed(1)} fps, ${r.droppedFrames} dropped frames in ${(r.durationMs / 1000).toFixed(1)} s (${r.updates} updates, one per frame; ${r.planCommits} plans painted); planFor median ${r.planMedianMs.toFixed(1)} ms, p95 ${r.planP95Ms.toFixed(1)} ms`,
      );
    }

    // A ~2,000-node DAG: pick leafChunkTokens so the projected DAG has about that many nodes.
    const number = page.getByTestId('param-leafChunkTokens-number');
    const dagView = page.getByTestId('dag-view');
    let chunk = Math.max(100, Math.round(session.tokens / args.dagNodes));
    let nodes = 0;
    for (let attempt = 0; attempt < 4; attempt++) {
      await number.fill(String(chunk));
      await number.press('Enter');
      await page.waitForTimeout(600);
      nodes = Number(await dagView.getAttribute('data-node-count'));
      if (Math.abs(nodes - args.dagNodes) / args.dagNodes < 0.05 || nodes === 0) break;
      chunk = Math.max(100, Math.round((chunk * nodes) / args.dagNodes));
    }
    await page.waitForTimeout(500);
    const panFit = await measurePan(page, 180);
    const renderedFit = (await page.evaluate('document.querySelectorAll("[data-testid=dag-node]").length')) as number;
    log(args.json, `  DAG ${nodes.toLocaleString('en-US')} nodes, pan at the automatic fit   ${panFit.fps.toFixed(1)} fps, ${panFit.droppedFrames} dropped frames of ${panFit.frames} (${renderedFit} nodes rendered)`);
    await page.locator('.react-flow__controls-fitview').click();
    await page.waitForTimeout(800);
    const panAll = await measurePan(page, 180);
    const renderedAll = (await page.evaluate('document.querySelectorAll("[data-testid=dag-node]").length')) as number;
    log(args.json, `  DAG pan with every node in view            ${panAll.fps.toFixed(1)} fps, ${panAll.droppedFrames} dropped frames of ${panAll.frames} (${renderedAll} nodes rendered)`);

    return {
      turns: session.turns,
      tokens: session.tokens,
      importMs: Math.round(importMs),
      firstPaintMs: Math.round(median(paints)),
      firstPaintRunsMs: paints.map(Math.round),
      idleFps: round1(idle.fps),
      slider: Object.fromEntries(
        sliders.map((s) => [
          s.param,
          { fps: round1(s.fps), droppedFrames: s.droppedFrames, updates: s.updates, planCommits: s.planCommits, planMedianMs: round1(s.planMedianMs), planP95Ms: round1(s.planP95Ms) },
        ]),
      ),
      dag: {
        nodes,
        leafChunkTokens: chunk,
        panFit: { fps: round1(panFit.fps), droppedFrames: panFit.droppedFrames, frames: panFit.frames, renderedNodes: renderedFit },
        panAllInView: { fps: round1(panAll.fps), droppedFrames: panAll.droppedFrames, frames: panAll.frames, renderedNodes: renderedAll },
      },
    };
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  benchUi(args)
    .then((ui) => {
      if (args.json) process.stdout.write(`${JSON.stringify({ ui })}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`bench:ui failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    });
}
