/**
 * Own, enumerable properties worked out on first read: a span's turn ids, a plan's DAG, a
 * skipped firing's reason. Spreads, JSON, structured clones and deep equality see a plain
 * value; nothing is listed unless someone reads it (a live replay's projection plans at
 * every firing and reads almost none of them).
 *
 * Why not `{ get turnIds() { ... } }`: each such literal makes a new getter closure, and V8
 * then gives the object a dictionary of its own instead of a shared hidden class (~1 KB, and
 * slower to make). In a projection those objects were most of what survived V8's young
 * collections: ~1 MB promoted to the old generation per slider frame on a 100,000-turn dag.
 * Here every object gets the SAME getter and setter (one pair per property name), and its
 * own thunk or value sits in a non-enumerable slot, so objects built alike share one class.
 */
const SLOT = Symbol('lazy values');

/**
 * One lazy value. A class, not an object literal: V8 tracks the objects made by a literal per
 * allocation site and, when nearly all of a site's objects survive a young collection, makes
 * the site allocate in the old generation from then on; a replay's summaries live as long as
 * the replay, and every lazy field of every caller would then be allocated old (seen with
 * --trace-pretenuring in a projection while the cells were literals).
 */
class Cell {
  constructor(
    public compute: (() => unknown) | null,
    public value: unknown,
  ) {}
}
/** The cells of one object, by property name (a class for the same reason). */
class Cells {
  [key: string]: Cell;
}
type Slotted = { [SLOT]?: Cells };

const descriptors = new Map<string, PropertyDescriptor>();

function descriptorOf(key: string, settable: boolean): PropertyDescriptor {
  const id = settable ? `${key}\u0000set` : key;
  let d = descriptors.get(id);
  if (d) return d;
  const get = function (this: Slotted): unknown {
    const cell = this[SLOT]![key];
    if (cell.compute !== null) {
      cell.value = cell.compute();
      cell.compute = null;
    }
    return cell.value;
  };
  const set = function (this: Slotted, value: unknown): void {
    const cell = this[SLOT]![key];
    cell.compute = null;
    cell.value = value;
  };
  d = settable ? { get, set, enumerable: true, configurable: true } : { get, enumerable: true, configurable: true };
  descriptors.set(id, d);
  return d;
}

/**
 * `head`'s properties, then `key` computed on first read (once), then `tail`'s: the key order an
 * object literal written in that order would have. `settable`: an assignment replaces the value
 * (without it, assigning throws in strict code, as for a getter-only literal).
 */
export function withLazy<T extends object, K extends keyof T & string>(head: object, key: K, compute: () => T[K], tail: object | null = null, opts?: { settable?: boolean }): T {
  const o = head as Slotted;
  let slot = o[SLOT];
  if (!slot) Object.defineProperty(o, SLOT, { value: (slot = new Cells()) });
  slot[key] = new Cell(compute, undefined);
  Object.defineProperty(o, key, descriptorOf(key, opts?.settable === true));
  if (tail !== null) Object.assign(o, tail);
  return o as T;
}

/**
 * `make(o)`, made once and kept on `o` under the hidden key `key` (non-enumerable: JSON,
 * spreads, clones and deep equality never see it) for as long as `o` lives; an object that
 * cannot take a key (frozen) gets a fresh value each time. `make` takes `o` so callers pass one
 * module-level function, not a closure per call (turns are read this way by the hundred
 * thousand). On the object rather than in a WeakMap: V8's young collector keeps a WeakMap entry
 * alive while its key is young, so what is kept for short-lived objects (a pre-stage's masked
 * turns) would be promoted with them.
 */
export function keptOn<O extends object, T>(o: O, key: symbol, make: (o: O) => T): T {
  const held = (o as { [k: symbol]: T | undefined })[key];
  if (held !== undefined) return held;
  const value = make(o);
  if (Object.isExtensible(o)) Object.defineProperty(o, key, { value });
  return value;
}
