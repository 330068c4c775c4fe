/**
 * shared/lazy.ts: a lazy field reads like a plain property (key order, JSON, spread, structured
 * clone, deep equality), is worked out once and only when read, and objects built alike share
 * one V8 hidden class (a getter in an object literal gives each object a dictionary of its own:
 * checked in a child Node with V8's natives syntax).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { keptOn, withLazy } from '../../shared/lazy.js';

interface Span {
  id: string;
  first: number;
  ids: number[];
  tokens: number;
}

describe('withLazy', () => {
  it('computes the value once, on first read, and not before', () => {
    let calls = 0;
    const s = withLazy<Span, 'ids'>({ id: 'p0', first: 3 }, 'ids', () => (calls++, [7, 8]), { tokens: 12 });
    expect(calls).toBe(0);
    expect(s.ids).toEqual([7, 8]);
    expect(s.ids).toBe(s.ids);
    expect(calls).toBe(1);
  });

  it('reads as a plain property: key order, JSON, spread, structured clone and deep equality', () => {
    const plain = { id: 'p0', first: 3, ids: [7, 8], tokens: 12 };
    const s = withLazy<Span, 'ids'>({ id: 'p0', first: 3 }, 'ids', () => [7, 8], { tokens: 12 });
    expect(Object.keys(s)).toEqual(Object.keys(plain));
    expect(JSON.stringify(s)).toBe(JSON.stringify(plain));
    expect({ ...s }).toEqual(plain);
    expect(structuredClone(s)).toEqual(plain);
    expect(s).toEqual(plain);
  });

  it('a settable field takes an assignment; a read-only one refuses it, as a getter-only literal does', () => {
    const s = withLazy<Span, 'ids'>({ id: 'p0' }, 'ids', () => [1], null, { settable: true });
    s.ids = [4];
    expect(s.ids).toEqual([4]);
    const r = withLazy<Span, 'ids'>({ id: 'p1' }, 'ids', () => [1]);
    expect(() => {
      r.ids = [4];
    }).toThrow(TypeError);
    expect(r.ids).toEqual([1]);
  });

  it('a compute that throws is tried again on the next read', () => {
    let fail = true;
    const s = withLazy<Span, 'ids'>({ id: 'p0' }, 'ids', () => {
      if (fail) throw new Error('not yet');
      return [2];
    });
    expect(() => s.ids).toThrow('not yet');
    fail = false;
    expect(s.ids).toEqual([2]);
  });

  it('objects built alike share one hidden class with fast properties (a getter literal does not)', () => {
    const lazy = pathToFileURL(path.resolve(__dirname, '../../shared/lazy.ts')).href;
    const script = `import { withLazy } from '${lazy}';
const a = withLazy({ id: 1 }, 'ids', () => [1], { n: 2 }, { settable: true });
const b = withLazy({ id: 2 }, 'ids', () => [2], { n: 3 }, { settable: true });
let g = null;
const c = { id: 3, get ids() { return (g ??= [3]); }, n: 4 };
process.stdout.write(JSON.stringify({ fast: %HasFastProperties(a), shared: %HaveSameMap(a, b), literalFast: %HasFastProperties(c) }));`;
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ fast: true, shared: true, literalFast: false });
  });
});

describe('keptOn', () => {
  it('makes a value once per object and keeps it out of sight; a frozen object gets a fresh one each time', () => {
    const KEY = Symbol('test');
    let made = 0;
    const make = (o: { n: number }) => ({ twice: o.n * 2, made: ++made });
    const o = { n: 3 };
    const first = keptOn(o, KEY, make);
    expect(keptOn(o, KEY, make)).toBe(first);
    expect(first).toEqual({ twice: 6, made: 1 });
    expect([Object.keys(o), JSON.stringify(o), { ...o }]).toEqual([['n'], '{"n":3}', { n: 3 }]);
    const frozen = Object.freeze({ n: 4 });
    expect(keptOn(frozen, KEY, make)).not.toBe(keptOn(frozen, KEY, make));
    expect(made).toBe(3);
  });
});
