/**
 * Agreement with ccusage 18.0.11 (`npx ccusage session --offline --json`, see docs/cost.md)
 * on the spotter 258c7280 main transcript: parsed here with ccusage's own dedupe rule (a
 * record is skipped when its message.id + requestId pair was seen; records lacking either
 * are all kept), priced record by record and summed as ccusage does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { priceRecordedUsage } from '../../shared/cost/caching.js';
import type { ModelCallUsage } from '../../shared/usage/types.js';
import { FIXTURES, fixtureDb, type FixtureDb } from '../helpers/fixture-sessions.js';
import { listModelCalls } from '../../electron/store/model-calls.js';
import { priceOf } from '../../shared/cost/prices.js';
import { runReplay } from '../../electron/engine/replay.js';
import { afterAll, beforeAll } from 'vitest';

const FILE = 'spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl';

/** The fixture wherever under FIXTURES it lives (the folder layout may change). */
function findFixture(dir: string, name: string): string {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    if (e.isDirectory()) {
      const hit = findFixture(p, name);
      if (hit) return hit;
    }
  }
  return '';
}

interface UsageJson {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
}

function ccusageCalls(file: string): ModelCallUsage[] {
  const seen = new Set<string>();
  const calls: ModelCallUsage[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line) as { requestId?: string; timestamp?: string; message?: { id?: string; model?: string; usage?: UsageJson } };
    const u = rec.message?.usage;
    if (!u || typeof u.input_tokens !== 'number' || typeof u.output_tokens !== 'number') continue;
    const key = rec.message?.id != null && rec.requestId != null ? `${rec.message.id}:${rec.requestId}` : null;
    if (key !== null) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    const write = u.cache_creation_input_tokens ?? 0;
    const w1h = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    calls.push({
      position: calls.length,
      turnId: calls.length,
      messageId: rec.message?.id ?? null,
      model: rec.message?.model ?? null,
      timestamp: rec.timestamp ?? null,
      inputTokens: u.input_tokens,
      // As the importers record it: the 1-hour part where the split is given, the rest at 5 minutes.
      cacheWrite5mTokens: write - w1h,
      cacheWrite1hTokens: w1h,
      cacheReadTokens: u.cache_read_input_tokens ?? 0,
      outputTokens: u.output_tokens,
      placeholder: false,
    });
  }
  return calls;
}

describe('ccusage agreement on the spotter 258c7280 main transcript', () => {
  const file = findFixture(FIXTURES, FILE);
  if (!file) throw new Error(`fixture ${FILE} not found under ${FIXTURES}`);
  const calls = ccusageCalls(file);
  const sum = (f: (u: ModelCallUsage) => number | null) => calls.reduce((s, u) => s + (f(u) ?? 0), 0);

  it("has ccusage's token totals exactly, every write a 1-hour write", () => {
    expect(calls).toHaveLength(152);
    expect(new Set(calls.map((u) => u.model))).toEqual(new Set(['claude-opus-4-6']));
    expect(sum((u) => u.inputTokens)).toBe(180);
    expect(sum((u) => u.outputTokens)).toBe(10_458);
    expect(sum((u) => u.cacheWrite5mTokens) + sum((u) => u.cacheWrite1hTokens)).toBe(349_474);
    expect(sum((u) => u.cacheWrite1hTokens)).toBe(349_474);
    expect(sum((u) => u.cacheReadTokens)).toBe(14_771_617);
  });

  it("prices it at ccusage's $9.83 with every write at the 5-minute rate", () => {
    const usd = calls.reduce((s, u) => s + priceRecordedUsage(u, undefined, { cacheWriteRate: '5m' }).costUsd, 0);
    // ccusage printed totalCost 9.832370999999997: 180 × 5 + 10,458 × 25 + 349,474 × 6.25 + 14,771,617 × 0.5 µ$
    expect(usd).toBeCloseTo(9.832371, 9);
    expect(usd.toFixed(2)).toBe('9.83');
    expect(calls.every((u) => priceRecordedUsage(u).known)).toBe(true);
  });

  it('prices it at $11.14 at the recorded 1-hour rate (what the provider charged, what the app shows)', () => {
    const usd = calls.reduce((s, u) => s + priceRecordedUsage(u).costUsd, 0);
    // 180 × 5 + 10,458 × 25 + 349,474 × 10 + 14,771,617 × 0.5 = 11,142,898.5 µ$: $1.31 more than ccusage
    expect(usd).toBeCloseTo(11.1428985, 9);
    expect(usd.toFixed(2)).toBe('11.14');
  });
});

/**
 * What ccusage 18.0.11 printed for every Claude Code fixture file, each file alone in its own
 * project folder (so one "session" per file), run on 2026-12-01 as:
 *   mkdir -p /tmp/ccu && cd /tmp/ccu && npm i ccusage@18.0.11
 *   for f in test/fixtures/claude-code/*.jsonl; do mkdir -p home/projects/$(basename $f .jsonl); cp $f home/projects/$(basename $f .jsonl)/; done
 *   CLAUDE_CONFIG_DIR=/tmp/ccu/home npx ccusage session --offline --json
 * (sessionId = the folder = the file name; cacheCreation = cacheCreationTokens; totalCost as printed).
 */
const CCUSAGE_18_0_11: ReadonlyArray<[string, { input: number; output: number; cacheCreation: number; cacheRead: number; totalCost: number }]> = [
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1', { input: 1308, output: 22901, cacheCreation: 102189, cacheRead: 728660, totalCost: 1.5820762499999996 }],
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a4ca7529859c158c2', { input: 445, output: 5145, cacheCreation: 113769, cacheRead: 615694, totalCost: 1.1497532499999998 }],
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a52886dc180afb356', { input: 39, output: 4180, cacheCreation: 85894, cacheRead: 430337, totalCost: 0.856701 }],
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-ab1e6e141221a29ab', { input: 723, output: 4230, cacheCreation: 33267, cacheRead: 360852, totalCost: 0.49770975000000006 }],
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a36efb2a1231c41e2', { input: 11, output: 447, cacheCreation: 28741, cacheRead: 118168, totalCost: 0.24994525 }],
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-aef063ba534d73153', { input: 10, output: 677, cacheCreation: 16998, cacheRead: 100730, totalCost: 0.17357750000000002 }],
  ['claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a6aa8ad077d9ea083', { input: 10, output: 397, cacheCreation: 17715, cacheRead: 101254, totalCost: 0.17132075 }],
  ['spotter__258c7280-ae70-4798-800f-63464d01a85d', { input: 180, output: 10458, cacheCreation: 349474, cacheRead: 14771617, totalCost: 9.832370999999997 }],
  ['spotter__258c7280-ae70-4798-800f-63464d01a85d__subagents__agent-acompact-fffbd0', { input: 3, output: 6, cacheCreation: 2487, cacheRead: 166758, totalCost: 0.09908775 }],
  ['spotter__258c7280-ae70-4798-800f-63464d01a85d__subagents__agent-a881341', { input: 15, output: 3, cacheCreation: 42176, cacheRead: 34159, totalCost: 0.16849770000000003 }],
  ['spotter__subagent', { input: 1576, output: 534, cacheCreation: 25842, cacheRead: 427286, totalCost: 0.3963855 }],
  ['spotter__tool_heavy', { input: 54, output: 64, cacheCreation: 17696, cacheRead: 88231, totalCost: 0.15658550000000002 }],
  ['claude-code-log__-Users-dain-workspace-JSSoundRecorder__7acd37a8-2745-4b58-a8a9-46164b22ad9e', { input: 1804, output: 20797, cacheCreation: 182937, cacheRead: 1502915, totalCost: 1.4542552499999999 }],
  ['claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-ea02459f', { input: 3289, output: 1799, cacheCreation: 36957, cacheRead: 76673, totalCost: 0.19844265 }],
  ['claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-645808c9', { input: 993, output: 110, cacheCreation: 0, cacheRead: 0, totalCost: 0.001543 }],
  ['claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-2b93909d', { input: 1004, output: 48, cacheCreation: 0, cacheRead: 0, totalCost: 0.003732 }],
  ['claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7', { input: 129, output: 2498, cacheCreation: 47747, cacheRead: 324259, totalCost: 0.31418594999999994 }],
  ['claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a', { input: 93, output: 268, cacheCreation: 12698, cacheRead: 103219, totalCost: 0.0828822 }],
  ['claude-code-log__-Users-dain-workspace-claude-code-log-sample__fe869ecb-c176-478f-9734-7e4b8ef12cff', { input: 279, output: 465, cacheCreation: 83966, cacheRead: 1164952, totalCost: 0.6721701000000001 }],
];

/**
 * The app's recorded cost of each file (USD, 6 decimals) and the two terms that take ccusage's
 * figure to it (docs/cost.md, "Every fixture against ccusage"): nothing else differs.
 */
const APP_VS_CCUSAGE: Readonly<Record<string, { app: number; oneHour: number; output: number }>> = {
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1': { app: 1.965285, oneHour: 0.383209, output: 0.000000 },
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a4ca7529859c158c2': { app: 1.219203, oneHour: 0.000000, output: 0.069450 },
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a52886dc180afb356': { app: 0.914076, oneHour: 0.000000, output: 0.057375 },
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-ab1e6e141221a29ab': { app: 0.595860, oneHour: 0.000000, output: 0.098150 },
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a36efb2a1231c41e2': { app: 0.301470, oneHour: 0.000000, output: 0.051525 },
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-aef063ba534d73153': { app: 0.215978, oneHour: 0.000000, output: 0.042400 },
  'claude-code-log__-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1__subagents__agent-a6aa8ad077d9ea083': { app: 0.239446, oneHour: 0.000000, output: 0.068125 },
  'spotter__258c7280-ae70-4798-800f-63464d01a85d': { app: 11.853923, oneHour: 1.310527, output: 0.711025 },
  'spotter__258c7280-ae70-4798-800f-63464d01a85d__subagents__agent-acompact-fffbd0': { app: 0.108414, oneHour: 0.009326, output: 0.000000 },
  'spotter__258c7280-ae70-4798-800f-63464d01a85d__subagents__agent-a881341': { app: 0.263394, oneHour: 0.094896, output: 0.000000 },
  'spotter__subagent': { app: 0.519593, oneHour: 0.096908, output: 0.026300 },
  'spotter__tool_heavy': { app: 0.226645, oneHour: 0.066360, output: 0.003700 },
  'claude-code-log__-Users-dain-workspace-JSSoundRecorder__7acd37a8-2745-4b58-a8a9-46164b22ad9e': { app: 1.454255, oneHour: 0.000000, output: 0.000000 },
  'claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-ea02459f': { app: 0.198443, oneHour: 0.000000, output: 0.000000 },
  'claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-645808c9': { app: 0.001543, oneHour: 0.000000, output: 0.000000 },
  'claude-code-log__-Users-dain-workspace-coderabbit-review-helper__agent-2b93909d': { app: 0.003732, oneHour: 0.000000, output: 0.000000 },
  'claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7': { app: 0.331151, oneHour: 0.000000, output: 0.016965 },
  'claude-code-viewer__1af7fc5e-8455-4414-9ccd-011d40f70b2a': { app: 0.093157, oneHour: 0.000000, output: 0.010275 },
  'claude-code-log__-Users-dain-workspace-claude-code-log-sample__fe869ecb-c176-478f-9734-7e4b8ef12cff': { app: 0.698210, oneHour: 0.000000, output: 0.026040 },
};

describe('every Claude Code fixture file against ccusage 18.0.11: each difference in dollars', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it('covers every Claude Code fixture transcript', () => {
    const files = fs.readdirSync(path.join(FIXTURES, 'claude-code')).filter((n) => n.endsWith('.jsonl')).map((n) => n.replace(/\.jsonl$/, ''));
    expect(CCUSAGE_18_0_11.map(([name]) => name).sort()).toEqual(files.sort());
  });

  for (const [name, printed] of CCUSAGE_18_0_11) {
    it(`${name}: ccusage's figure, then the app's = ccusage + 1-hour writes + final output figures`, () => {
      const file = path.join(FIXTURES, 'claude-code', `${name}.jsonl`);
      const cc = ccusageCalls(file);
      const sum = (f: (u: ModelCallUsage) => number | null) => cc.reduce((s, u) => s + (f(u) ?? 0), 0);
      // 1. ccusage's rule reproduces its figures exactly.
      expect([sum((u) => u.inputTokens), sum((u) => u.outputTokens), sum((u) => (u.cacheWrite5mTokens ?? 0) + (u.cacheWrite1hTokens ?? 0)), sum((u) => u.cacheReadTokens)]).toEqual([printed.input, printed.output, printed.cacheCreation, printed.cacheRead]);
      const ccusageUsd = cc.reduce((s, u) => s + priceRecordedUsage(u, undefined, { cacheWriteRate: '5m' }).costUsd, 0);
      expect(ccusageUsd).toBeCloseTo(printed.totalCost, 9);
      // 2. The app's recorded cost of the same file (every session imported from it: a file with inline sidechains holds several).
      const sessions = f.sessions.filter((s) => path.basename(s.sourceFile) === `${name}.jsonl`);
      expect(sessions.length).toBeGreaterThan(0);
      const app = sessions.flatMap((s) => listModelCalls(f.db, s.id)).filter((u) => !u.placeholder);
      const appUsd = app.reduce((s, u) => s + priceRecordedUsage(u).costUsd, 0);
      // 3. The difference, term by term:
      //   1-hour writes: ccusage prices them at the 5-minute rate (1.25× input), Anthropic bills 2× input;
      const oneHour = cc.reduce((s, u) => s + ((u.cacheWrite1hTokens ?? 0) * (priceOf(u.model ?? '').cacheWrite1h - priceOf(u.model ?? '').cacheWrite5m)) / 1e6, 0);
      //   output: ccusage keeps a message's FIRST record (a streaming stub), the app its LAST (the final figure).
      const firstOutput = new Map<string, number>();
      for (const u of cc) if (u.messageId && !firstOutput.has(u.messageId)) firstOutput.set(u.messageId, u.outputTokens ?? 0);
      const output = app.reduce((s, u) => s + (u.messageId && firstOutput.has(u.messageId) ? ((u.outputTokens ?? 0) - firstOutput.get(u.messageId)!) * priceOf(u.model ?? '').output : 0) / 1e6, 0);
      //   nothing else: the same calls (one per message id), the same input, cache and model figures.
      expect(app.length).toBe(cc.length);
      expect(appUsd - ccusageUsd - oneHour - output).toBeCloseTo(0, 9);
      const pinned = APP_VS_CCUSAGE[name];
      for (const [x, want] of [[appUsd, pinned.app], [oneHour, pinned.oneHour], [output, pinned.output]]) expect(Math.abs(x - want)).toBeLessThan(1e-6);
    });
  }
});

describe("a session's recorded total against ccusage's per-file figures: the compaction agent and the subagents", () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());
  const appOf = (part: string) => Object.entries(APP_VS_CCUSAGE).filter(([n]) => n.startsWith(part)).reduce((s, [, v]) => s + v.app, 0);

  it('spotter 258c7280: main $11.853923 + compaction call $0.108414 + subagent $0.263394 (ccusage: three sessions, $10.10 at its rates)', async () => {
    const id = f.sessions.find((s) => s.sourceFile.endsWith('spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl') && s.parentSessionId === null)!.id;
    const t = (await runReplay(f.db, { sessionId: id, strategy: 'window' })).timeline!;
    const lines = t.baselines.source.lines!;
    expect(lines.map((l) => [l.kind, Math.round(l.costUsd * 1e6) / 1e6])).toEqual([['main', 11.853923], ['compaction', 0.108414], ['subagent', 0.263394]]);
    expect(t.baselines.source.totals.costUsd).toBeCloseTo(appOf('spotter__258c7280'), 6);
  });

  it('ef958aa1 (2.1.114): main $1.965285 + six subagents; no compaction agent', async () => {
    const id = f.sessions.find((s) => s.sourceFile.endsWith('ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl') && s.parentSessionId === null)!.id;
    const t = (await runReplay(f.db, { sessionId: id, strategy: 'window' })).timeline!;
    expect(t.baselines.source.lines!.map((l) => l.kind)).toEqual(['main', 'subagent', 'subagent', 'subagent', 'subagent', 'subagent', 'subagent']);
    expect(t.baselines.source.totals.costUsd).toBeCloseTo(appOf('claude-code-log__-experiments-worktrees__ef958aa1'), 6);
  });
});
