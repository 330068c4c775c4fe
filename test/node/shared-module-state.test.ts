/**
 * Planners in shared/ are pure functions of what they are given: no module-level mutable
 * state (a `let`, a `new Map` / `Set` / `WeakMap` / `WeakSet`, an empty array at module scope).
 * The declarations below stood before that rule: caches keyed on object identity that a
 * session index passed in is to replace, and constant lookup tables. A new one fails here;
 * the list only shrinks. Constant tables are written as readonly arrays (`.includes`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const KNOWN = new Set([
  'shared/cost/prices.ts:MODEL_FREE',
  'shared/facts/ledger.ts:NO_FACTS',
  'shared/facts/ledger.ts:keptIndex',
  'shared/facts/ledger.ts:runsMemo',
  'shared/facts/ledger.ts:NO_PLACES',
  'shared/facts/ledger.ts:numberMemo',
  'shared/facts/patterns.ts:COMMON_ROOTS',
  'shared/facts/patterns.ts:STOPWORDS',
  'shared/facts/word-numbers.ts:numbers',
  'shared/facts/word-numbers.ts:slots',
  'shared/facts/word-numbers.ts:epoch',
  'shared/facts/word-numbers.ts:PRESENT',
  'shared/lazy.ts:descriptors',
  'shared/replay/live.ts:NONE',
  'shared/replay/live.ts:NO_RANGES',
  'shared/replay/live.ts:plainCalls',
  'shared/replay/live.ts:columnsOf',
  'shared/replay/prefix-arrays.ts:ladders',
  'shared/replay/timeline.ts:inputsOf',
  'shared/strategies/dag.ts:leafScratch',
  'shared/strategies/dag.ts:lastCoverage',
  'shared/strategies/spans.ts:built',
  'shared/strategies/spans.ts:bare',
  'shared/strategies/spans.ts:lastBare',
  'shared/strategies/spans.ts:lastGrown',
  'shared/strategies/spans.ts:views',
  'shared/summarize/summary-facts.ts:TITLES',
]);
const DECLARATION = /^(?:export )?(?:let ([A-Za-z_$][\w$]*)|const ([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:new (?:Set|Map|WeakMap|WeakSet)\b|\[\s*\]))/;

/** `file:name` of every module-level mutable declaration under shared/. */
function moduleState(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...moduleState(rel));
    else if (rel.endsWith('.ts')) {
      for (const line of fs.readFileSync(path.join(ROOT, rel), 'utf8').split('\n')) {
        const m = DECLARATION.exec(line);
        if (m) out.push(`${rel}:${m[1] ?? m[2]}`);
      }
    }
  }
  return out;
}

describe('module-level state in shared/', () => {
  it('adds none beyond what stood before the rule', () => {
    expect(moduleState('shared').filter((x) => !KNOWN.has(x))).toEqual([]);
  });

  it('finds a new one (the check is not vacuous)', () => {
    expect(DECLARATION.exec('const cache = new Map<string, number>();')?.[2]).toBe('cache');
    expect(DECLARATION.exec('let last: string | null = null;')?.[1]).toBe('last');
    expect(DECLARATION.exec('const held: string[] = [];')?.[2]).toBe('held');
    expect(DECLARATION.exec("const RUNNERS: readonly string[] = ['run', 'exec'];")).toBeNull();
  });
});
