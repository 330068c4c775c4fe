/**
 * `npm run bench`: every benchmark of the project in one run (not part of `npm test`).
 *
 *   import     bench/import.ts    benchImport({ turns: 1,000,000 })  import speed against a raw insert
 *   plan       bench/plan.ts      benchPlans({ turns: 100,000 })    every strategy's planner
 *   pass       bench/pass.ts      benchPassRatio({ turns: 100,000 }) a full extractive dag pass, and its time over the frozen extractive-2 summarizer's in the same run (goal <= 1.5x)
 *   replay     bench/replay.ts    benchReplay({ turns: 100,000 })   live replay / one-shot pass ratio per strategy, projected-timeline medians
 *   check      bench/check.ts     benchCheck({ turns: 3,000 })      the reference replay's time beside the fast replay's, and that they agree
 *   tokenizer  bench/tokenizer.ts benchTokenizer()                  gpt-tokenizer vs tiktoken
 *   ledger     bench/ledger.ts    benchLedger({ tokens: 20,000 })   facts + loss ledger of a real 20k-token leaf (goal <= 5 ms)
 *   summary    bench/summary.ts   benchSummary()                    the summary replacing each source-tool compaction vs the tool's own and two trivial baselines: tokens, probe score, ledger retention
 *   sweep      bench/sweep.ts     benchSweep({ turns: 4,000, jobs: 2 })  8 sessions × 6 dag points with 1 job vs 2 worker threads, in one run
 *   responsive bench/responsive.ts benchResponsive({ turns: 1,000,000, deleteTurns: 100,000 })  listSessions / renameVariant latency over HTTP during an import / upload / delete
 *
 * Human-readable tables by default; `--json` prints ONE JSON object on stdout:
 *   {"import":{...},"plan":{"<strategy>":{"turns","medianMs","p95Ms"}},
 *    "pass":{"dag":{"turns","turnsPerSecond"}},"tokenizer":{"tokensPerSecond","ratioToTiktoken"}}
 * `--quick` scales every part down for a smoke test; `--only import,plan,...` runs a
 * subset. A part whose module is missing or throws is reported as {"error": "..."}
 * under its key (and on stderr), never silently left out; the exit code is then 1.
 */
import { pathToFileURL } from 'node:url';

type Part = 'import' | 'plan' | 'pass' | 'replay' | 'check' | 'tokenizer' | 'ledger' | 'summary' | 'sweep' | 'responsive';
const PARTS: readonly Part[] = ['import', 'plan', 'pass', 'replay', 'check', 'tokenizer', 'ledger', 'summary', 'sweep', 'responsive'];

interface Sizes {
  importTurns: number;
  planTurns: number;
  planRuns: number;
  passTurns: number;
  tokenizerChars: number;
  responsive: { turns: number; deleteTurns: number; uploadTurns: number };
}

const FULL: Sizes = { importTurns: 1_000_000, planTurns: 100_000, planRuns: 50, passTurns: 100_000, tokenizerChars: 8_000_000, responsive: { turns: 1_000_000, deleteTurns: 100_000, uploadTurns: 200_000 } };
const QUICK: Sizes = { importTurns: 20_000, planTurns: 10_000, planRuns: 10, passTurns: 5_000, tokenizerChars: 500_000, responsive: { turns: 20_000, deleteTurns: 5_000, uploadTurns: 5_000 } };

type Json = Record<string, unknown>;

/** Loads a bench module by path; a missing file or export becomes a clear error, not a crash. */
async function load<T>(file: string, exportName: string): Promise<T> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(file)) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${file} could not be loaded (${(e as Error).message.split('\n')[0]})`, { cause: e });
  }
  const fn = mod[exportName];
  if (typeof fn !== 'function') throw new Error(`${file} does not export ${exportName}()`);
  return fn as T;
}

async function runPart(part: Part, sizes: Sizes): Promise<Json> {
  switch (part) {
    case 'import': {
      const benchImport = await load<(o: { turns: number }) => Promise<Json>>('./import.js', 'benchImport');
      return benchImport({ turns: sizes.importTurns });
    }
    case 'plan': {
      const benchPlans = await load<(o: { turns: number; runs?: number }) => Json>('./plan.js', 'benchPlans');
      return benchPlans({ turns: sizes.planTurns, runs: sizes.planRuns });
    }
    case 'pass': {
      const benchPassRatio = await load<(o: { turns: number }) => Promise<Json>>('./pass.js', 'benchPassRatio');
      const r = await benchPassRatio({ turns: sizes.passTurns });
      return { dag: r.after, dagBefore: r.before, ratio: r.ratio, cpuRatio: r.cpuRatio };
    }
    case 'replay': {
      const benchReplay = await load<(o: { turns: number }) => Promise<Json>>('./replay.js', 'benchReplay');
      return benchReplay({ turns: sizes.passTurns });
    }
    case 'check': {
      const benchCheck = await load<(o: { turns: number }) => Promise<Json>>('./check.js', 'benchCheck');
      return benchCheck({ turns: sizes === QUICK ? 600 : 3_000 });
    }
    case 'tokenizer': {
      const benchTokenizer = await load<(o: { chars: number }) => Json>('./tokenizer.js', 'benchTokenizer');
      return benchTokenizer({ chars: sizes.tokenizerChars });
    }
    case 'ledger': {
      const benchLedger = await load<(o: { tokens: number; runs: number }) => Json>('./ledger.js', 'benchLedger');
      return benchLedger({ tokens: 20_000, runs: sizes === QUICK ? 30 : 200 });
    }
    case 'summary': {
      const benchSummary = await load<() => Array<Json & { texts?: unknown }>>('./summary.js', 'benchSummary');
      const formatSummaryTable = await load<(r: unknown) => string>('./summary.js', 'formatSummaryTable');
      const sessions = benchSummary();
      return { sessions: sessions.map(({ texts: _t, ...r }) => r), table: formatSummaryTable(sessions) };
    }
    case 'sweep': {
      const benchSweep = await load<(o: { turns: number; jobs: number }) => Promise<Json>>('./sweep.js', 'benchSweep');
      return benchSweep({ turns: sizes === QUICK ? 600 : 4_000, jobs: 2 });
    }
    case 'responsive': {
      const benchResponsive = await load<(o: Sizes['responsive']) => Promise<Json>>('./responsive.js', 'benchResponsive');
      return benchResponsive(sizes.responsive);
    }
    default: {
      const _exhaustive: never = part;
      return _exhaustive;
    }
  }
}

const fmt = (n: unknown) => (typeof n === 'number' ? n.toLocaleString('en-US') : String(n ?? '-'));

function printHuman(results: Partial<Record<Part, Json>>): void {
  const out: string[] = [];
  const imp = results.import;
  if (imp) {
    out.push('Import (generated transcript through the real importer)');
    if (imp.error) out.push(`  error: ${imp.error}`);
    else out.push(`  ${fmt(imp.turns)} turns: ${fmt(imp.turnsPerSecond)} turns/s, ratio to raw insert ${fmt(imp.ratioToRawInsert)}, peak RSS ${fmt(imp.peakRssMb)} MB`);
  }
  const plan = results.plan;
  if (plan) {
    out.push('', 'Plan time per strategy (target: median <= 16 ms)');
    if (plan.error) out.push(`  error: ${plan.error}`);
    else {
      out.push(`  ${'strategy'.padEnd(12)} ${'turns'.padStart(8)} ${'median ms'.padStart(10)} ${'p95 ms'.padStart(9)}`);
      for (const [name, r] of Object.entries(plan) as Array<[string, Json]>) {
        out.push(`  ${name.padEnd(12)} ${fmt(r.turns).padStart(8)} ${Number(r.medianMs).toFixed(3).padStart(10)} ${Number(r.p95Ms).toFixed(3).padStart(9)}${Number(r.medianMs) > 16 ? '  over one frame' : ''}`);
      }
    }
  }
  const pass = results.pass;
  if (pass) {
    out.push('', 'Full extractive dag pass');
    const dag = (pass.dag ?? pass) as Json;
    if (dag.error) out.push(`  error: ${dag.error}`);
    else out.push(`  ${fmt(dag.turns)} turns (${fmt(dag.sessionTokens)} tokens) in ${fmt(dag.passMs)} ms: ${fmt(dag.turnsPerSecond)} turns/s, ${fmt(dag.summarizerCalls)} summarizer calls`);
    const before = pass.dagBefore as Json | undefined;
    if (before && !before.error) out.push(`  before (extractive-2, the fact-list summarizer), same run: ${fmt(before.passMs)} ms; ratio after/before ${fmt(pass.ratio)}x wall, ${fmt(pass.cpuRatio)}x CPU (goal <= 1.5x)`);
  }
  const rep = results.replay;
  if (rep) {
    out.push('', `Live replay vs one-shot pass (${fmt(rep.turns)} generated turns, median of ${fmt(rep.pairs)} pairs, medians of their times; goal <= 2x) and the projected timeline (goal <= 16 ms median)`);
    if (rep.error) out.push(`  error: ${rep.error}`);
    else {
      const rows = rep.replay as Record<string, Json>;
      const prev = rep.replayPreview as Record<string, Json>;
      for (const [s, r] of Object.entries(rows)) out.push(`  ${s.padEnd(11)} pass ${fmt(r.passMs)} ms, replay ${r.replayMs === null ? r.status : `${fmt(r.replayMs)} ms = ${fmt(r.ratioToPass)}x (median of ${(r.ratios as number[]).join(', ')})`}, ${fmt(r.firings)} firings, depth ${fmt(r.maxDepth)}, turns summarized ${fmt(r.passTurnsSummarized)} / ${fmt(r.replayTurnsSummarized)}; preview ${prev[s]?.medianMs === null ? prev[s]?.status : `${fmt(prev[s]?.medianMs)} ms (cpu ${fmt(prev[s]?.cpuMedianMs)} ms; whole frame ${fmt(prev[s]?.frameMedianMs)} ms; machine reference ${(prev[s]?.referenceMs as number[] | undefined)?.join(' / ') ?? '?'} ms)`}`);
    }
  }
  const chk = results.check;
  if (chk) {
    out.push('', `Reference replay vs fast replay (${fmt(chk.turns)} generated turns; the reference is quadratic: the ratio is what the fast path buys)`);
    if (chk.error) out.push(`  error: ${chk.error}`);
    else for (const [s, r] of Object.entries(chk.strategies as Record<string, Json>)) out.push(`  ${s.padEnd(11)} fast ${fmt(r.fastMs)} ms, reference ${fmt(r.referenceMs)} ms = ${fmt(r.referenceOverFast)}x, ${fmt(r.firings)} firings, ${r.agree ? 'agree' : 'DISAGREE'}`);
  }
  const tok = results.tokenizer;
  if (tok) {
    out.push('', 'Tokenizer (o200k_base, same text)');
    if (tok.error) out.push(`  error: ${tok.error}`);
    else out.push(`  gpt-tokenizer ${fmt(tok.tokensPerSecond)} tokens/s, tiktoken ${fmt(tok.tiktokenTokensPerSecond)} tokens/s: ratio ${fmt(tok.ratioToTiktoken)}${tok.countsMatch ? ', identical counts' : ', COUNTS DIFFER'}`);
  }
  const led = results.ledger;
  if (led) {
    out.push('', 'Loss ledger of a 20k-token leaf (extract facts + match the summary; goal <= 5 ms)');
    if (led.error) out.push(`  error: ${led.error}`);
    else out.push(`  ${fmt(led.leafTokens)} tokens, ${fmt(led.turns)} turns, ${fmt(led.facts)} facts: median ${fmt(led.medianMs)} ms (CPU ${fmt(led.cpuMedianMs)} ms), p95 ${fmt(led.p95Ms)} ms, extraction ${fmt(led.extractMedianMs)} ms; ratio to the goal ${fmt(led.ratioToGoal)}`);
  }
  const sum = results.summary;
  if (sum) {
    out.push('', 'Summary quality: the summary replacing each source-tool compaction vs the tool\'s own (goal: <= its tokens, >= 2x its retention per category)');
    if (sum.error) out.push(`  error: ${sum.error}`);
    else out.push(String(sum.table).replace(/^/gm, '  '));
  }
  const sw = results.sweep;
  if (sw) {
    out.push('', 'Sweep: 8 generated sessions × 6 dag points, one extractive pass each, --jobs 1 vs --jobs 2 (goal: every core)');
    if (sw.error) out.push(`  error: ${sw.error}`);
    else out.push(`  ${fmt(sw.turnsPerSession)} turns per session: 1 job ${fmt(sw.oneJobMs)} ms (${fmt(sw.oneJobPointsPerSecond)} points/s), ${fmt(sw.jobs)} jobs ${fmt(sw.nJobsMs)} ms (${fmt(sw.nJobsPointsPerSecond)} points/s): ${fmt(sw.speedup)}x${sw.sameRows ? ', same rows' : ', ROWS DIFFER'}`);
  }
  const resp = results.responsive;
  if (resp) {
    out.push('', 'listSessions (read) and renameVariant (write) in turn over HTTP every 50 ms while the worker imports / deletes (target: worst < 100 ms)');
    if (resp.error) out.push(`  error: ${resp.error}`);
    else
      for (const phase of ['idle', 'import', 'upload', 'delete']) {
        const p = resp[phase] as Json;
        const w = p.write as Json;
        out.push(`  ${phase.padEnd(7)} ${Number(p.turns) > 0 ? `${fmt(p.turns)} turns in ${fmt(p.seconds)} s` : `${fmt(p.seconds)} s`}: reads ${fmt(p.calls)} calls, median ${fmt(p.medianMs)} ms, worst ${fmt(p.worstMs)} ms; writes ${fmt(w.calls)} calls, median ${fmt(w.medianMs)} ms, worst ${fmt(w.worstMs)} ms${phase === 'delete' ? `; deleteSession itself ${fmt(p.deleteCallMs)} ms` : ''}`);
      }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

export async function runBenchmarks(argv: readonly string[]): Promise<{ results: Partial<Record<Part, Json>>; failed: boolean }> {
  const sizes = argv.includes('--quick') ? QUICK : FULL;
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? (argv[onlyAt + 1] ?? '').split(',').filter(Boolean) : null;
  const unknown = only?.filter((p) => !(PARTS as readonly string[]).includes(p)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown benchmark part(s): ${unknown.join(', ')} (parts: ${PARTS.join(', ')})`);
  const results: Partial<Record<Part, Json>> = {};
  let failed = false;
  for (const part of PARTS) {
    if (only && !only.includes(part)) continue;
    process.stderr.write(`bench: ${part}...\n`);
    try {
      results[part] = await runPart(part, sizes);
      const nested = part === 'pass' ? (results[part]!.dag as Json) : results[part]!;
      if (nested?.error) failed = true;
    } catch (e) {
      failed = true;
      const message = e instanceof Error ? e.message : String(e);
      results[part] = { error: message };
      process.stderr.write(`bench: ${part} failed: ${message}\n`);
    }
  }
  return { results, failed };
}

async function main(argv: string[]): Promise<void> {
  const { results, failed } = await runBenchmarks(argv);
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(results)}\n`);
  else printHuman(results);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`bench: ${(e as Error).message}\n`);
    process.exitCode = 2;
  });
}
