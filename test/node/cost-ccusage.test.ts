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
import { FIXTURES } from '../helpers/fixture-sessions.js';

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
