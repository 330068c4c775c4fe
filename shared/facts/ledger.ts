/**
 * The loss ledger: which facts of a compacted span survive in what the model sees after
 * the compaction, which are lost, ranked by salience. Also the merge of fact sets (a
 * condensed summary's facts are the union of its children's: condensation by facts).
 */
import { numberEpoch, PresenceSlot, wordNumbers } from './word-numbers.js';
import { copyFact, FACT_MEMO } from './fact.js';
import { detailOf, foldRelativePaths } from './extract.js';
import { contentWords, pathsIn } from './patterns.js';
import { commandFixKeys } from './errors.js';
import { sumTextRetention } from '../retention/text.js';
import { emptyRetention, FACT_CATEGORIES, type Decision, type Fact, type FactCategory, type FactSet, type Ledger, type LedgerEntry, type SummaryLedger } from './types.js';

/**
 * How much a fact matters to a continuing agent: how often it came up (log-scaled), how
 * late in the span (recent facts are what the next step needs), whether the user named
 * it, and whether it records a failure (an unfixed error, a failed command) or a change
 * (a file created or edited). Open todos and requests rank high by category.
 */
export function salience(f: Fact, itemCount: number): number {
  let s = Math.log2(1 + f.mentions);
  s += itemCount > 1 ? (2 * f.lastItem) / (itemCount - 1) : 2;
  if (f.userNamed) s += 2;
  if (f.ok === false || (f.category === 'error' && !f.fixed)) s += 1.5;
  if (f.actions && ((f.actions.edited ?? 0) > 0 || (f.actions.created ?? 0) > 0 || (f.actions.deleted ?? 0) > 0)) s += 1;
  if (f.category === 'request') s += 1.5;
  if (f.category === 'todo' && f.status !== 'completed') s += 2;
  return s;
}

/**
 * The union of fact sets in time order (set i's items come after set i-1's): deduped by
 * (category, key), mentions and actions summed, first/last items shifted into one
 * timeline, the latest command outcome and todo state winning; an error counts as fixed
 * when any set says it was fixed, or when a later set ran its command successfully.
 * Decisions are merged the same way (by key).
 *
 * `todos: 'latest'` (a condensed summary: "state is the latest child's state"): the todo
 * list is the latest set's that has one, not the union of every list the span ever had,
 * since a todo list is replaced whole on each update.
 *
 * `intoFirst`: the first set's facts become the result's (updated in place, not copied), for a
 * caller that never reads the first set again — a replay's summary merging the span of the
 * one before it (a rolling replay would copy every fact so far at each summary). The result's
 * index of its facts by key is kept for the next such merge, which then reads only the sets
 * it adds (`keptIndex`).
 */
export function mergeFactSets(sets: readonly FactSet[], opts?: { todos?: 'union' | 'latest'; intoFirst?: boolean }): FactSet {
  // Facts in first-seen order, found by key in one map per category: a request's key is up
  // to 240 characters, and joining it to its category cost a string build and a hash per
  // fact per merge (a rolling replay merges every fact so far at each of its summaries).
  const intoFirst = opts?.intoFirst === true;
  // A merge that takes over its first set keeps its result's index (all todos kept: none is dropped from it).
  const keepIndex = intoFirst && opts.todos !== 'latest' && sets.length > 0;
  // The first set's index, when a merge that took over a set made it (its keys are unique): taken over too.
  const reused = keepIndex ? keptIndex.get(sets[0].facts) : undefined;
  if (reused) keptIndex.delete(sets[0].facts);
  const merged: Fact[] = reused ? sets[0].facts.slice() : [];
  const byCategory = reused ?? new Map<FactCategory, Map<string, Fact>>();
  const decisions = new Map<string, Decision>();
  let anyDecisions = false;
  let latestTodoSet = -1;
  if (opts?.todos === 'latest') for (let i = 0; i < sets.length; i++) if (sets[i].facts.some((f) => f.category === 'todo')) latestTodoSet = i;
  let offset = 0;
  for (let si = 0; si < sets.length; si++) {
    const set = sets[si];
    if (set.decisions) {
      anyDecisions = true;
      for (const d of set.decisions) {
        const prev = decisions.get(d.key);
        if (!prev) decisions.set(d.key, { ...d, firstItem: d.firstItem + offset, lastItem: d.lastItem + offset });
        else {
          prev.mentions += d.mentions;
          prev.lastItem = Math.max(prev.lastItem, d.lastItem + offset);
          prev.userNamed ||= d.userNamed;
        }
      }
    }
    for (const f of si === 0 && reused ? NO_FACTS : set.facts) {
      if (f.category === 'todo' && latestTodoSet >= 0 && si !== latestTodoSet) continue;
      let byKey = byCategory.get(f.category);
      if (!byKey) byCategory.set(f.category, (byKey = new Map()));
      const prev = byKey.get(f.key);
      if (!prev) {
        // In the one fact shape (fact.ts), its items shifted into the merged timeline; the first
        // set's own facts when the caller gives them up (`intoFirst`).
        const copy = si === 0 && intoFirst ? f : copyFact(f, f.firstItem + offset, f.lastItem + offset);
        byKey.set(f.key, copy);
        merged.push(copy);
        continue;
      }
      prev.mentions += f.mentions;
      prev.lastItem = Math.max(prev.lastItem, f.lastItem + offset);
      prev.userNamed ||= f.userNamed;
      if (f.text.length < prev.text.length && f.category === 'path') prev.text = f.text;
      if (f.actions) {
        const a = (prev.actions ??= {});
        for (const [k, v] of Object.entries(f.actions) as Array<[keyof NonNullable<Fact['actions']>, number]>) a[k] = (a[k] ?? 0) + v;
      }
      if (f.ok !== undefined) {
        prev.ok = f.ok;
        prev.exitCode = f.exitCode;
      }
      if (f.failures) prev.failures = (prev.failures ?? 0) + f.failures;
      if (f.fixed !== undefined) prev.fixed = (prev.fixed ?? false) || f.fixed;
      if (f.status !== undefined) prev.status = f.status;
    }
    offset += set.itemCount;
  }
  // One file named absolutely in one set and relatively in another is one fact (as within a span).
  const facts = foldRelativePaths(merged);
  if (keepIndex) {
    // The folded relative paths leave the index with the facts; the next merge that takes this one over reads it.
    if (facts !== merged) {
      const left = new Set(facts);
      const paths = byCategory.get('path');
      for (const f of merged) if (!left.has(f) && paths?.get(f.key) === f) paths.delete(f.key);
    }
    keptIndex.set(facts, byCategory);
  }
  // An error one set left open is fixed when a later set ran its command successfully (the
  // run that fixed it fell in the next span, where the error itself never appeared).
  // Or a later set ran a command on the same target or file successfully (shared/facts/errors.ts).
  let succeededBy: Map<string, number> | null = null;
  for (const f of facts) {
    if (f.category !== 'error' || f.fixed !== false) continue;
    if (f.source?.startsWith('command:')) {
      const run = byCategory.get('command')?.get(f.source.slice('command:'.length));
      if (run?.ok === true && run.lastItem > f.lastItem) {
        f.fixed = true;
        continue;
      }
    }
    if (!f.targets) continue;
    succeededBy ??= successfulCommandKeys(byCategory.get('command'));
    for (const k of f.targets) if ((succeededBy.get(k) ?? -1) > f.lastItem) f.fixed = true;
  }
  for (const f of facts) f.detail = detailOf(f);
  return anyDecisions ? { facts, itemCount: offset, decisions: [...decisions.values()] } : { facts, itemCount: offset };
}

const NO_FACTS: readonly Fact[] = [];

/** The target and file keys of the commands whose last run succeeded, each with the latest item it ran at. */
function successfulCommandKeys(commands: ReadonlyMap<string, Fact> | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of commands?.values() ?? []) {
    if (c.ok !== true) continue;
    for (const k of commandFixKeys(c.key, pathsIn(c.key))) out.set(k, Math.max(out.get(k) ?? -1, c.lastItem));
  }
  return out;
}

/**
 * The index by category and key of a merge's result, for the merge that takes the result over
 * next (`intoFirst`), keyed by the result's facts array (never changed after the merge): a
 * rolling replay's summary merges every fact so far with its own turns' at each of its 67
 * summaries, and indexing every fact so far again at each one made its ledgers quadratic.
 */
const keptIndex = new WeakMap<readonly Fact[], Map<FactCategory, Map<string, Fact>>>();

/** What a ledger matches facts against, prepared once per visible text. */
export interface VisibleIndex {
  raw: string;
  /** Whitespace collapsed: commands match across line breaks. */
  collapsed: string;
  lower: string;
  words: Set<string>;
}

export function visibleIndex(visibleText: string): VisibleIndex {
  const collapsed = visibleText.replace(/\s+/g, ' ');
  return { raw: visibleText, collapsed, lower: collapsed.toLowerCase(), words: new Set(contentWords(visibleText)) };
}

const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** The maximal runs of word characters (JS's `\w`: [A-Za-z0-9_]) of a text. */
export function wordRuns(text: string): Set<string> {
  const out = new Set<string>();
  eachRun(text, (start, end) => out.add(text.slice(start, end)));
  return out;
}

/** Calls `fn(start, end)` for each maximal run of word characters of a text, in order. */
function eachRun(text: string, fn: (start: number, end: number) => void): void {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isWordCode(text.charCodeAt(i))) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      fn(start, i);
      start = -1;
    }
  }
}

const runsMemo = new WeakMap<VisibleIndex, { raw?: Map<string, number[]>; collapsed?: Map<string, number[]>; lower?: Map<string, number[]> }>();

/**
 * The word runs of one of a visible index's texts, each with where it starts, built on first
 * use (once per ledger).
 */
function runsOf(v: VisibleIndex, which: 'raw' | 'collapsed' | 'lower'): Map<string, number[]> {
  let memo = runsMemo.get(v);
  if (!memo) runsMemo.set(v, (memo = {}));
  const known = memo[which];
  if (known) return known;
  const found = (memo[which] = new Map<string, number[]>());
  const text = v[which];
  eachRun(text, (start, end) => {
    const run = text.slice(start, end);
    const list = found.get(run);
    if (list) list.push(start);
    else found.set(run, [start]);
  });
  return found;
}

/**
 * The numbered runs (word-numbers.ts) of one of an index's texts, marked present for the
 * index asked about (one index at a time per text kind: a ledger asks about one context).
 */
const runSlots = { raw: new PresenceSlot(), collapsed: new PresenceSlot(), lower: new PresenceSlot() };
function runSlot(v: VisibleIndex, which: 'raw' | 'collapsed' | 'lower'): PresenceSlot {
  const slot = runSlots[which];
  // Asked for every fact of a span: the closures below are made only when the text changes.
  if (slot.holds(v)) return slot;
  slot.activate(
    v,
    () => runsOf(v, which).entries(),
    (w) => runsOf(v, which).get(w),
  );
  return slot;
}

/** The numbered content words of an index's text, marked present likewise. */
const wordSlot = new PresenceSlot();
function wordsPresent(v: VisibleIndex): PresenceSlot {
  if (wordSlot.holds(v)) return wordSlot;
  wordSlot.activate(
    v,
    () => [...v.words].map((w): [string, boolean] => [w, true]),
    (w) => v.words.has(w),
  );
  return wordSlot;
}

/**
 * A necessary condition for `needle` occurring in the text whose word runs are `runs`, so a
 * fact the context lost costs a few set lookups instead of a scan of the whole context (a
 * replay checks every fact of a long session against a context of ~100k tokens): every run
 * of word characters inside the needle with a non-word character on both sides WITHIN the
 * needle is a whole run of the text too (those neighbours are in the text wherever the
 * needle is). With `wholeWord` (includesWord's rule: the needle not inside a longer word)
 * the runs at the needle's ends count as well. Never false where the scan would find it.
 */
export function mayOccur(runs: { has(run: string): boolean }, needle: string, wholeWord: boolean): boolean {
  for (const run of requiredRuns(needle, wholeWord).runs) if (!runs.has(run)) return false;
  return true;
}

/** The runs mayOccur looks up for a needle, where each starts in the needle, and their numbers (word-numbers.ts, of `epoch`). */
interface NeedleCut {
  runs: readonly string[];
  at: readonly number[];
  ids: Int32Array;
  epoch: number;
}

/**
 * The runs mayOccur looks up for a needle, cut once per needle: the same facts are checked
 * against every summary and firing of a replay, and cutting a 240-character request into its
 * runs each time cost more than the lookups.
 */
const runsOfNeedle = [new Map<string, NeedleCut>(), new Map<string, NeedleCut>()];
function requiredRuns(needle: string, wholeWord: boolean): NeedleCut {
  const memo = runsOfNeedle[wholeWord ? 1 : 0];
  let out = memo.get(needle);
  if (out && out.epoch === numberEpoch()) return out;
  const runs: string[] = [];
  const at: number[] = [];
  eachRun(needle, (start, end) => {
    if (!wholeWord && (start === 0 || end === needle.length)) return;
    runs.push(needle.slice(start, end));
    at.push(start);
  });
  if (memo.size >= 50_000) memo.clear();
  const ids = wordNumbers(runs);
  memo.set(needle, (out = { runs, at, ids, epoch: numberEpoch() }));
  return out;
}

/** `hay.includes(needle)` for one of the index's texts, the word runs ruling most misses out first. */
export function occurs(v: VisibleIndex, which: 'raw' | 'collapsed' | 'lower', needle: string): boolean {
  return occursCut(v, which, needle, requiredRuns(needle, false), isOneRun(needle));
}

/**
 * occurs with the needle's runs already cut (`inner`: requiredRuns(needle, false); `oneRun`:
 * isOneRun(needle)). Where the needle occurs, each inner run of it is a whole run of the text
 * at the same distance from the needle's start; so the needle is looked for only at the places
 * of a rare inner run (the first with at most 4 places, else the rarest), not by a scan of the
 * whole text.
 */
function occursCut(v: VisibleIndex, which: 'raw' | 'collapsed' | 'lower', needle: string, inner: NeedleCut, oneRun: boolean): boolean {
  // A whole word run of the text is a substring of it (only a needle of one run can be one).
  if (oneRun && runsOf(v, which).has(needle)) return true;
  const present = runSlot(v, which);
  let rarest: readonly number[] | null = null;
  let offset = 0;
  for (let k = 0; k < inner.ids.length; k++) {
    const id = inner.ids[k];
    if (!present.has(id)) return false;
    const places = present.placesOf(id);
    if (!rarest || places.length < rarest.length) {
      rarest = places;
      offset = inner.at[k];
      // Rare enough: checking its places beats looking up the needle's other runs.
      if (places.length <= 4) break;
    }
  }
  const text = v[which];
  if (!rarest) return text.includes(needle);
  for (const p of rarest) if (p >= offset && text.startsWith(needle, p - offset)) return true;
  return false;
}

/**
 * What survivesIn matches a fact by, cut once per fact object and kept in its memo slot
 * (fact.ts: JSON leaves it out; a merge's copy takes it along): a replay asks about every
 * fact of the session at each of its summaries, and cutting a 240-character request into runs
 * and words, a path into segments or a number into its forms each time cost more than the
 * lookups. One shape for every category (the fields a category does not use are empty).
 */
interface Probe {
  key: string;
  text: string;
  /**
   * The key's cut and isOneRun(key): request, error, todo (the `occurs(lower, key)` half), path
   * and `$` number (`occurs(raw, key)`): requiredRuns(key, false); identifier (a whole word):
   * requiredRuns(key, true).
   */
  keyRuns: NeedleCut;
  keyOneRun: boolean;
  /** request, error, todo: the text's distinct content words (the word-share half). */
  words: Int32Array;
  /** path: its text's cut when it differs from the key (a whole word when it has no '/'). */
  textRuns: NeedleCut;
  textOneRun: boolean;
  /** path: its last two segments joined ('' for a path of one segment); command: its needle. */
  needle: string;
  /** The needle's cut (a path of one segment: its key's, as a whole word) and isOneRun(needle). */
  needleRuns: NeedleCut;
  needleOneRun: boolean;
  /**
   * The number of a word run that every way the fact can survive needs as a whole run of the
   * raw text (-1: none). Most facts are lost, and one presence check then answers for them:
   * an identifier's first run; a command's or a `$` amount's first inner run; a path's first
   * run inside its last segment (every needle of a path ends with that segment, after a '/'
   * or alone as a whole word). Requests, errors, todos and numbers with units have none.
   */
  anchor: number;
  /** number: the value's forms (as written, with thousands commas) and its unit. */
  forms: readonly string[];
  unit: string;
  /** Its words' numbers are of this epoch (word-numbers.ts). */
  epoch: number;
}
const PROBE = FACT_MEMO;
type Probed = Fact & { [PROBE]?: Probe };
const NO_CUT: NeedleCut = { runs: [], at: [], ids: new Int32Array(0), epoch: -1 };
const NO_WORDS = new Int32Array(0);

function probeOf(f: Fact): Probe {
  const held = (f as Probed)[PROBE];
  if (held && held.key === f.key && held.text === f.text && held.epoch === numberEpoch()) return held;
  const p: Probe = { key: f.key, text: f.text, keyRuns: NO_CUT, keyOneRun: false, words: NO_WORDS, textRuns: NO_CUT, textOneRun: false, needle: '', needleRuns: NO_CUT, needleOneRun: false, anchor: -1, forms: [], unit: '', epoch: numberEpoch() };
  switch (f.category) {
    case 'request':
    case 'error':
    case 'todo':
      p.keyRuns = requiredRuns(f.key, false);
      p.keyOneRun = isOneRun(f.key);
      p.words = wordNumbers([...new Set(contentWords(f.text))]);
      break;
    case 'path': {
      const segs = f.key.split('/').filter((x) => x.length > 0);
      p.needle = segs.length >= 2 ? segs.slice(-2).join('/') : '';
      p.keyRuns = requiredRuns(f.key, false);
      p.keyOneRun = isOneRun(f.key);
      if (f.text !== f.key) {
        p.textRuns = requiredRuns(f.text, !f.text.includes('/'));
        p.textOneRun = isOneRun(f.text);
      }
      p.needleRuns = p.needle !== '' ? requiredRuns(p.needle, false) : requiredRuns(f.key, true);
      p.needleOneRun = p.needle !== '' ? isOneRun(p.needle) : p.keyOneRun;
      p.anchor = pathAnchor(f.key, f.text);
      break;
    }
    case 'command': {
      const c = f.key.replace(/\s+/g, ' ');
      p.needle = c.length <= 60 ? c : c.slice(0, 60).replace(/\s+\S*$/, '');
      p.needleRuns = requiredRuns(p.needle, false);
      p.needleOneRun = isOneRun(p.needle);
      p.anchor = firstId(p.needleRuns);
      break;
    }
    case 'number': {
      if (f.key.startsWith('$')) {
        p.keyRuns = requiredRuns(f.key, false);
        p.keyOneRun = isOneRun(f.key);
        p.anchor = firstId(p.keyRuns);
        break;
      }
      const sp = f.key.indexOf(' ');
      const value = f.key.slice(0, sp);
      const withCommas = value.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
      p.forms = value === withCommas ? [value] : [value, withCommas];
      p.unit = f.key.slice(sp + 1);
      break;
    }
    case 'identifier':
      p.keyRuns = requiredRuns(f.key, true);
      p.keyOneRun = isOneRun(f.key);
      // A one-run name is itself a run of the text; a longer one has all its runs there.
      p.anchor = p.keyOneRun ? wordNumbers([f.key])[0] : firstId(p.keyRuns);
      break;
    default: {
      const _exhaustive: never = f.category;
      return _exhaustive;
    }
  }
  // Numbers dealt again while cutting (word-numbers.ts): cut again, all of the new epoch.
  const stale = (c: NeedleCut) => c !== NO_CUT && c.epoch !== p.epoch;
  if (p.epoch !== numberEpoch() || stale(p.keyRuns) || stale(p.textRuns) || stale(p.needleRuns)) return probeOf(f);
  (f as Probed)[PROBE] = p;
  return p;
}

const firstId = (c: NeedleCut): number => (c.ids.length > 0 ? c.ids[0] : -1);

/**
 * A path's anchor (Probe.anchor): the first run of its last segment that has a non-word
 * character after it inside the segment, so that wherever a needle ending in '/' + segment
 * occurs, that run is a whole run of the text (its neighbours are in the needle); a needle
 * that is the segment alone is looked for as a whole word (all its runs). Only for a key of
 * several segments that does not end in '/', whose text is the key or a suffix of it (what
 * shortPath, shortenPaths and the folds give); else none.
 */
function pathAnchor(key: string, text: string): number {
  const slash = key.lastIndexOf('/');
  if (slash <= 0 || slash === key.length - 1 || (text !== key && !key.endsWith(text))) return -1;
  for (let i = slash + 1; i < key.length; i++) {
    if (!isWordCode(key.charCodeAt(i))) continue;
    let end = i;
    while (end < key.length && isWordCode(key.charCodeAt(end))) end++;
    return end < key.length ? wordNumbers([key.slice(i, end)])[0] : -1;
  }
  return -1;
}

/** A number's unit right after its value at `at` (spaces between allowed; '×' also as 'x'). */
function unitAfter(lower: string, at: number, form: string, unit: string): boolean {
  const rest = lower.slice(at + form.length, at + form.length + unit.length + 2).trimStart();
  return rest.startsWith(unit) || (unit === '×' && rest.startsWith('x'));
}

/**
 * includesWord(v.raw, needle), the word runs ruling most misses out first (and answering alone
 * for a needle that is one word run), with the needle's cut made once (`whole`:
 * requiredRuns(needle, true); `oneRun`: isOneRun(needle)).
 */
function occursAsWordCut(v: VisibleIndex, needle: string, whole: NeedleCut, oneRun: boolean): boolean {
  const runs = runsOf(v, 'raw');
  if (oneRun) return runs.has(needle);
  // mayOccur's rule over the cut: every run of the needle is a whole run of the text.
  for (const run of whole.runs) if (!runs.has(run)) return false;
  return includesWord(v.raw, needle);
}

function isOneRun(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isWordCode(text.charCodeAt(i))) return false;
  return text.length > 0;
}

const isDigitCode = (c: number) => c >= 48 && c <= 57;
const NO_PLACES: readonly number[] = [];
const isNumberCode = (c: number) => isDigitCode(c) || c === 46 || c === 44;
const numberMemo = new WeakMap<VisibleIndex, Map<string, number[]>>();

/**
 * Where a number's value can stand in the lowercased visible text, by the value: every
 * position that starts with a digit not preceded by a digit or '.', with each prefix of the
 * digits, '.' and ',' from there that is not followed by a digit. Exactly the occurrences the
 * number rule accepts before it looks at the unit; built once per ledger, so a number fact
 * costs a lookup instead of a walk over every occurrence of its digits ("1" occurs thousands
 * of times in a long context).
 */
function numberStarts(v: VisibleIndex): Map<string, number[]> {
  let map = numberMemo.get(v);
  if (map) return map;
  map = new Map();
  const text = v.lower;
  for (let p = 0; p < text.length; p++) {
    if (!isDigitCode(text.charCodeAt(p))) continue;
    const prev = p > 0 ? text.charCodeAt(p - 1) : -1;
    if (isDigitCode(prev) || prev === 46) continue;
    let e = p;
    while (e < text.length && isNumberCode(text.charCodeAt(e))) e++;
    for (let q = p + 1; q <= e; q++) {
      if (q < text.length && isDigitCode(text.charCodeAt(q))) continue;
      const form = text.slice(p, q);
      const list = map.get(form);
      if (list) list.push(p);
      else map.set(form, [p]);
    }
  }
  numberMemo.set(v, map);
  return map;
}

/**
 * Whether at least `share` of a text's distinct content words (`mine`, numbered) are among the
 * visible words (false for a text with none). Stops as soon as the answer is known: a lost request
 * misses most of its words, and a replay asks about every request of the session at each summary.
 */
function sharesWords(mine: Int32Array, words: PresenceSlot, share: number): boolean {
  const size = mine.length;
  if (size === 0) return false;
  let hit = 0;
  let miss = 0;
  for (let i = 0; i < size; i++) {
    if (words.has(mine[i])) {
      if (++hit / size >= share) return true;
    } else if ((size - ++miss) / size < share) return false;
  }
  return hit / size >= share;
}

/** `needle` occurs in `hay` not inside a longer word (`foo` does not survive as `foobar`). */
function includesWord(hay: string, needle: string): boolean {
  // isWordCode is JS's \w; charCodeAt past either end is NaN, which is no word character.
  const first = isWordCode(needle.charCodeAt(0));
  const last = isWordCode(needle.charCodeAt(needle.length - 1));
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    if ((!first || !isWordCode(hay.charCodeAt(at - 1))) && (!last || !isWordCode(hay.charCodeAt(at + needle.length)))) return true;
  }
  return false;
}

/** Share of content words a request, error or todo must keep to count as surviving. */
export const SURVIVAL_WORD_SHARE = 0.6;

/**
 * Whether a fact survives in a visible text, forgiving but not trivially true:
 * - path: the full path, or its last two segments (`lib/foo.ex` for `/home/u/p/lib/foo.ex`);
 *   a one-segment name (`mix.exs`) as a whole word;
 * - command: its canonical form as a whitespace-normalized substring; a long command
 *   (over 60 characters) by its first 60 characters cut at a word;
 * - identifier: the exact name as a whole word; number: the value (commas optional) then its unit;
 * - request, error, todo: at least 60% of their content words appear in the text.
 */
export function survivesIn(f: Fact, v: VisibleIndex): boolean {
  const p = probeOf(f);
  // A run every way of surviving needs, absent: lost (Probe.anchor), one array read.
  if (p.anchor >= 0 && !runSlot(v, 'raw').has(p.anchor)) return false;
  switch (f.category) {
    // Each needle's cut is the fact's probe's (made once per fact, not looked up per question).
    case 'path': {
      if (occursCut(v, 'raw', f.key, p.keyRuns, p.keyOneRun)) return true;
      if (f.text !== f.key && (f.text.includes('/') ? occursCut(v, 'raw', f.text, p.textRuns, p.textOneRun) : occursAsWordCut(v, f.text, p.textRuns, p.textOneRun))) return true;
      if (p.needle !== '') return occursCut(v, 'raw', p.needle, p.needleRuns, p.needleOneRun);
      return occursAsWordCut(v, f.key, p.needleRuns, p.needleOneRun);
    }
    case 'command':
      return occursCut(v, 'collapsed', p.needle, p.needleRuns, p.needleOneRun);
    case 'identifier':
      return occursAsWordCut(v, f.key, p.keyRuns, p.keyOneRun);
    case 'number': {
      if (f.key.startsWith('$')) return occursCut(v, 'raw', f.key, p.keyRuns, p.keyOneRun);
      const { forms, unit } = p;
      for (const form of forms) {
        // A value that starts with a digit: its accepted places are indexed (numberStarts).
        if (isDigitCode(form.charCodeAt(0))) {
          for (const at of numberStarts(v).get(form) ?? NO_PLACES) if (unitAfter(v.lower, at, form, unit)) return true;
          continue;
        }
        for (let at = v.lower.indexOf(form); at >= 0; at = v.lower.indexOf(form, at + 1)) {
          if (/[\d.]/.test(v.lower[at - 1] ?? '') || /\d/.test(v.lower[at + form.length] ?? '')) continue;
          if (unitAfter(v.lower, at, form, unit)) return true;
        }
      }
      return false;
    }
    case 'request':
    case 'error':
    case 'todo':
      // The word share first: it answers after a few lookups either way, and a request the
      // summary restates keeps its words without its exact wording (whose check compares text).
      return sharesWords(p.words, wordsPresent(v), SURVIVAL_WORD_SHARE) || occursCut(v, 'lower', f.key, p.keyRuns, p.keyOneRun);
    default: {
      const _exhaustive: never = f.category;
      return _exhaustive;
    }
  }
}

export function survives(f: Fact, visibleText: string): boolean {
  return survivesIn(f, visibleIndex(visibleText));
}

/**
 * The facts a ledger scores: every fact of the span but the todo items already completed
 * as of its end (the ledger asks about open work; the extractive summary shows done items too).
 */
export function ledgerFacts(span: FactSet): Fact[] {
  return span.facts.filter((f) => f.category !== 'todo' || f.status !== 'completed');
}

/** Which of a span's facts survive in the visible text and which are lost, by salience. */
export function ledgerOf(span: FactSet, visibleText: string): Ledger {
  const v = visibleIndex(visibleText);
  const retention = emptyRetention();
  const scored = ledgerFacts(span).map((f) => ({ f, s: salience(f, span.itemCount) }));
  scored.sort((a, b) => b.s - a.s || a.f.firstItem - b.f.firstItem);
  const kept: Fact[] = [];
  const lost: Fact[] = [];
  for (const { f } of scored) {
    const r = retention[f.category];
    r.total++;
    if (survivesIn(f, v)) {
      r.kept++;
      kept.push(f);
    } else lost.push(f);
  }
  return { kept, lost, retention };
}

/**
 * summaryLedgerOf(ledgerOf(span, visibleText), top) without ranking every fact: retention over
 * all of them, and the first `top` of each side in the same order (salience, then first item,
 * then span order, as ledgerOf's stable sort leaves ties). What every stored ledger is: a
 * rolling replay scores all the facts so far at each of its summaries, and sorting them all
 * cost as much as matching them.
 */
export function topLedgerOf(span: FactSet, visibleText: string, top = LEDGER_TOP): SummaryLedger {
  const v = visibleIndex(visibleText);
  const retention = emptyRetention();
  const kept: Array<{ f: Fact; s: number }> = [];
  const lost: Array<{ f: Fact; s: number }> = [];
  for (const f of ledgerFacts(span)) {
    const r = retention[f.category];
    r.total++;
    const ok = survivesIn(f, v);
    if (ok) r.kept++;
    const list = ok ? kept : lost;
    const s = salience(f, span.itemCount);
    // Insert after every entry not ranked below it (ties keep span order); keep `top`.
    if (list.length >= top && (top <= 0 || !ranksAbove(s, f, list[list.length - 1]))) continue;
    let at = list.length;
    while (at > 0 && ranksAbove(s, f, list[at - 1])) at--;
    list.splice(at, 0, { f, s });
    if (list.length > top) list.pop();
  }
  return { retention, lost: lost.map((x) => entryOf(x.f)), kept: kept.map((x) => entryOf(x.f)) };
}

/** ledgerOf's order: higher salience first, then the earlier first item. */
const ranksAbove = (s: number, f: Fact, x: { f: Fact; s: number }) => s > x.s || (s === x.s && f.firstItem < x.f.firstItem);

/** Retention records summed (a firing over several spans, a variant over its summaries). */
export function sumRetention(records: ReadonlyArray<Record<FactCategory, { kept: number; total: number }>>): Record<FactCategory, { kept: number; total: number }> {
  const out = emptyRetention();
  for (const r of records) for (const c of FACT_CATEGORIES) {
    out[c].kept += r[c]?.kept ?? 0;
    out[c].total += r[c]?.total ?? 0;
  }
  return out;
}

/** How many lost and kept facts a stored ledger lists (the rest are counted in `retention`). */
export const LEDGER_TOP = 20;

const entryOf = (f: Fact): LedgerEntry => (f.detail ? { category: f.category, text: f.text, detail: f.detail } : { category: f.category, text: f.text });

/** The stored form of a ledger: retention and the top facts of each side. */
export function summaryLedgerOf(l: Ledger, top = LEDGER_TOP): SummaryLedger {
  return { retention: l.retention, lost: l.lost.slice(0, top).map(entryOf), kept: l.kept.slice(0, top).map(entryOf) };
}

/** "lost: `lib/foo.ex` (edited 4×), `mix test` (failed, exit 2) …": a ledger's lost facts as one line. */
export function lostLine(entries: readonly LedgerEntry[], max = 5): string {
  if (entries.length === 0) return 'lost: nothing';
  const parts = entries.slice(0, max).map((e) => `\`${e.text}\`${e.detail ? ` (${e.detail})` : ''}`);
  return `lost: ${parts.join(', ')}${entries.length > max ? ' …' : ''}`;
}

/** Ledgers of several summaries as one (a firing that made several): retention summed, lost and kept lists joined in order. */
export function combineLedgers(ls: readonly SummaryLedger[], top = LEDGER_TOP): SummaryLedger {
  return {
    retention: sumRetention(ls.map((l) => l.retention)),
    lost: ls.flatMap((l) => l.lost).slice(0, top),
    kept: ls.flatMap((l) => l.kept).slice(0, top),
    text: sumTextRetention(ls.map((l) => l.text)),
  };
}
