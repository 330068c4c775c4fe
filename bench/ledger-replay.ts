/**
 * The firing ledger of a long live replay (goal: a replay at most 2x its one-shot pass).
 * A `window` replay fires at nearly every model call, so runReplay (electron/engine/replay.ts)
 * measures ONE ledger over all its firings on the last one (more than MAX_FIRING_LEDGERS):
 * the turns before the last firing's call, before = no summaries and no state, after = the
 * last firing's state. This script builds exactly that input from a generated session
 * (`syntheticTranscriptJsonl`, bench/pass.ts) replayed for real, then times `firingLedger`
 * on it alone: median wall and CPU time over `runs` runs, and the ledger's counts (they must
 * not move when the code gets faster).
 *
 * `npx tsx bench/ledger-replay.ts [--turns N] [--runs K] [--profile out.cpuprofile] [--dump ledger.json] [--json]`
 * (`--profile`: a V8 CPU profile of one more run, and its top functions by self time on stderr;
 * `--dump`: the whole FiringLedger as JSON, to compare two versions of the code byte for byte).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Session } from 'node:inspector/promises';
import { openDatabase } from '../electron/store/db.js';
import { importText } from '../electron/importers/import.js';
import { runReplay } from '../electron/engine/replay.js';
import { prepare } from '../electron/engine/engine.js';
import { memoizedCounter } from '../electron/tokenizer.js';
import { listTurns } from '../electron/store/turns.js';
import { countTokens } from '../electron/tokenizer.js';
import { firingLedger, type FiringLedgerInput } from '../shared/replay/firing-ledger.js';
import type { StrategyName, VariantState } from '../shared/strategies/types.js';
import { syntheticTranscriptJsonl } from './pass.js';

export interface LedgerReplayBenchResult {
  turns: number;
  firings: number;
  ledgerTurns: number;
  compacted: number;
  facts: number;
  kept: number;
  medianMs: number;
  cpuMedianMs: number;
  runs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The input runReplay hands firingLedger for a replay of more than 64 firings (see the header). */
export async function ledgerReplayInput(opts: { turns: number; strategy?: StrategyName }): Promise<{ input: FiringLedgerInput; firings: number }> {
  const strategy = opts.strategy ?? 'window';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-bench-ledger-replay-'));
  try {
    const db = openDatabase(path.join(dir, 'b.db'));
    const session = importText(db, 'bench-ledger.jsonl', syntheticTranscriptJsonl(opts.turns), { format: 'openai' }).sessions[0];
    const r = await runReplay(db, { sessionId: session.id, strategy });
    if (r.status !== 'completed') throw new Error(`replay ${r.status}: ${r.error}`);
    const rows = db.prepare("SELECT data FROM run_events WHERE run_id = ? AND kind = 'firing' ORDER BY id").all(r.runId) as Array<{ data: string }>;
    const last = JSON.parse(rows[rows.length - 1].data) as { turn: number; state: VariantState };
    const all = listTurns(db, session.id);
    db.close();
    const summaries = strategy === 'window' || strategy === 'masking' || strategy === 'forgetting' ? [] : null;
    if (!summaries) throw new Error(`${strategy}: only the model-free strategies (no summaries) are rebuilt here`);
    const input: FiringLedgerInput = {
      strategy,
      params: prepare(strategy, {}).params,
      turns: all.slice(0, last.turn),
      before: { summaries, state: {} },
      after: { summaries, state: last.state },
      countTokens: memoizedCounter((t) => countTokens(t), all),
    };
    return { input, firings: rows.length };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchLedgerReplay(opts: { turns: number; runs?: number; profile?: string; dump?: string }): Promise<LedgerReplayBenchResult> {
  const { input, firings } = await ledgerReplayInput({ turns: opts.turns });
  const wall: number[] = [];
  const cpu: number[] = [];
  let fl: ReturnType<typeof firingLedger> = null;
  for (let i = 0; i < (opts.runs ?? 5); i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fl = firingLedger(input);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  if (opts.dump) fs.writeFileSync(opts.dump, JSON.stringify(fl));
  if (opts.profile) await profileOnce(opts.profile, () => firingLedger(input));
  // Counted from the retention: the stored ledger lists only its top facts.
  const counts = fl ? Object.values(fl.ledger.retention) : [];
  const kept = counts.reduce((n, c) => n + c.kept, 0);
  return {
    turns: opts.turns,
    firings,
    ledgerTurns: input.turns.length,
    compacted: fl?.compactedPositions.length ?? 0,
    facts: counts.reduce((n, c) => n + c.total, 0),
    kept,
    medianMs: Math.round(median(wall)),
    cpuMedianMs: Math.round(median(cpu)),
    runs: wall.length,
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** One run under the V8 profiler; writes the .cpuprofile and prints the top self-time functions. */
async function profileOnce(file: string, fn: () => unknown): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  fn();
  const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
  session.disconnect();
  fs.writeFileSync(file, JSON.stringify(profile));
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const n = byId.get(id)!;
    const key = `${n.callFrame.functionName || '(anon)'} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 30);
  for (const [k, ms] of top) process.stderr.write(`${ms.toFixed(1).padStart(8)} ms  ${k}\n`);
}

async function main(argv: string[]): Promise<void> {
  const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const r = await benchLedgerReplay({ turns: Number(opt('--turns') ?? 100_000), runs: opt('--runs') ? Number(opt('--runs')) : undefined, profile: opt('--profile'), dump: opt('--dump') });
  process.stdout.write(`${JSON.stringify(r, null, argv.includes('--json') ? 0 : 2)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
