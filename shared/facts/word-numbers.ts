/**
 * Words numbered once per process, and which of them a text holds, as arrays indexed by
 * number: the loss ledger asks, for every fact of a span at every summary of a replay,
 * whether each of its words and word runs is in the text, and hashing those strings (each
 * lookup a few cache misses) cost more than everything else the ledger does. A fact's words
 * are numbered once (shared/facts/ledger.ts keeps them in its probe); a text is marked once
 * per ledger (`PresenceSlot.activate`); a check is then an array read.
 */

const numbers = new Map<string, number>();
const slots: PresenceSlot[] = [];
/** Numbers are dealt again from 0 when there are this many (a process that has read many sessions). */
const MAX_NUMBERS = 2_000_000;
let epoch = 0;

/** Increases whenever every number was dealt again: a number kept from an earlier epoch means nothing. */
export function numberEpoch(): number {
  return epoch;
}

/** Forgets every number (what happens when they run out; the tests call it directly): what holds one cuts again. */
export function dealAgain(): void {
  numbers.clear();
  epoch++;
  for (const s of slots) s.forget();
}

/** The number of a word, dealt on first sight; the texts marked present learn it too. */
export function wordNumber(word: string): number {
  let n = numbers.get(word);
  if (n !== undefined) return n;
  if (numbers.size >= MAX_NUMBERS) dealAgain();
  n = numbers.size;
  numbers.set(word, n);
  for (const s of slots) s.learn(word, n);
  return n;
}

/** The numbers of several words, all of one epoch (dealt again whole if the numbers ran out on the way). */
export function wordNumbers(words: readonly string[]): Int32Array {
  const at = epoch;
  const out = new Int32Array(words.length);
  for (let i = 0; i < words.length; i++) out[i] = wordNumber(words[i]);
  return epoch === at ? out : wordNumbers(words);
}

const PRESENT: readonly number[] = [];

/**
 * Which numbered words one text at a time holds, with where each stands (its places); a
 * slot serves one kind of question (the raw text's runs, the lowercased text's runs, the
 * content words), and switching it to another text marks that text's words again. A slot
 * holds on to the last text it marked until another is.
 */
export class PresenceSlot {
  private stamp = new Int32Array(1024);
  private places: Array<readonly number[] | undefined> = [];
  private gen = 0;
  private owner: object | null = null;
  private lookup: ((word: string) => readonly number[] | boolean | undefined) | null = null;

  constructor() {
    slots.push(this);
  }

  /**
   * Makes the words of `owner` the present ones, unless they already are: `entries` lists them
   * (with their places, or true), `lookup` answers for a word numbered later.
   */
  activate(owner: object, entries: () => Iterable<[string, readonly number[] | boolean]>, lookup: (word: string) => readonly number[] | boolean | undefined): void {
    if (this.owner === owner) return;
    this.switchTo(owner, entries, lookup);
  }

  /** Whether `owner`'s words are the present ones: callers check first, so no closure is made per question. */
  holds(owner: object): boolean {
    return this.owner === owner;
  }

  private switchTo(owner: object, entries: () => Iterable<[string, readonly number[] | boolean]>, lookup: (word: string) => readonly number[] | boolean | undefined): void {
    this.owner = owner;
    this.lookup = lookup;
    this.gen++;
    for (const [word, places] of entries()) {
      const n = numbers.get(word);
      if (n !== undefined) this.mark(n, places);
    }
  }

  has(n: number): boolean {
    return n < this.stamp.length && this.stamp[n] === this.gen;
  }

  /** Where word `n` stands in the text (only for a present word of a slot given places). */
  placesOf(n: number): readonly number[] {
    return this.places[n] ?? PRESENT;
  }

  /** A word numbered while a text is marked: marked too if the text holds it. */
  learn(word: string, n: number): void {
    if (!this.lookup) return;
    const places = this.lookup(word);
    if (places !== undefined && places !== false) this.mark(n, places);
  }

  forget(): void {
    this.owner = null;
    this.lookup = null;
    this.stamp = new Int32Array(1024);
    this.places = [];
    this.gen = 0;
  }

  private mark(n: number, places: readonly number[] | boolean): void {
    if (n >= this.stamp.length) {
      let size = this.stamp.length;
      while (size <= n) size *= 2;
      const grown = new Int32Array(size);
      grown.set(this.stamp);
      this.stamp = grown;
    }
    this.stamp[n] = this.gen;
    this.places[n] = places === true ? PRESENT : (places as readonly number[]);
  }
}
