/**
 * The one constructor of facts: every fact object has the same shape (the same properties in
 * the same order, the optional ones present as undefined; the ledger's memo is added last,
 * the same way to every fact it reads, and only when set: a test's deep equality counts a
 * symbol key even when its value is undefined).
 * A ledger reads a dozen properties of each of tens of thousands of facts per summary, and
 * facts built as literals with optional properties added in varying orders had dozens of
 * hidden classes, which made every one of those reads a megamorphic lookup. JSON leaves the
 * undefined properties and the symbol-keyed memo out, so stored facts read as before.
 */
import type { Fact, FactCategory } from './types.js';

/** Where the ledger keeps what it cut from a fact once (shared/facts/ledger.ts wordProbe). */
export const FACT_MEMO = Symbol('fact memo');
export type MemoFact = Fact & { [FACT_MEMO]?: unknown };

export function newFact(category: FactCategory, key: string, text: string, mentions: number, firstItem: number, lastItem: number, userNamed: boolean): Fact {
  const f: MemoFact = {
    category,
    key,
    text,
    mentions,
    firstItem,
    lastItem,
    userNamed,
    detail: undefined,
    actions: undefined,
    exitCode: undefined,
    ok: undefined,
    failures: undefined,
    fixed: undefined,
    source: undefined,
    targets: undefined,
    status: undefined,
  };
  return f;
}

/**
 * A copy of a fact in the constructor's shape (its `actions` copied too, its memo kept), its
 * items moved to `firstItem`/`lastItem` (a merge shifts them into one timeline).
 */
export function copyFact(f: Fact, firstItem = f.firstItem, lastItem = f.lastItem): Fact {
  const g = newFact(f.category, f.key, f.text, f.mentions, firstItem, lastItem, f.userNamed) as MemoFact;
  g.detail = f.detail;
  if (f.actions) g.actions = { ...f.actions };
  g.exitCode = f.exitCode;
  g.ok = f.ok;
  g.failures = f.failures;
  g.fixed = f.fixed;
  g.source = f.source;
  if (f.targets) g.targets = f.targets.slice();
  g.status = f.status;
  const memo = (f as MemoFact)[FACT_MEMO];
  if (memo !== undefined) g[FACT_MEMO] = memo;
  return g;
}
