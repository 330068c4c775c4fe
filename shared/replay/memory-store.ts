/**
 * An in-memory VariantStore (shared/passes/context.ts) for the live replay and the
 * window's projected timeline: passes write summaries and state here exactly as they do
 * to SQLite. Each summary remembers the model call at which it was made; a commit that
 * throws leaves nothing behind. The engine persists the result when a replay completes.
 */
import { withLazy } from '../lazy.js';
import type { ExistingSummary, VariantState } from '../strategies/types.js';
import type { NewSummary, VariantStore, VariantWriter } from '../passes/context.js';
import type { FactSet } from '../facts/types.js';

export interface MemorySummary extends NewSummary {
  id: number;
  compacted: boolean;
  /** Index of the model call before which the summary was made. */
  callIndex: number;
  /** Positions the summary stands for, through its children. */
  childIds: number[];
}

const existingOf = (r: MemorySummary): ExistingSummary => ({
  id: r.id,
  kind: r.kind,
  depth: r.depth,
  tokenCount: r.tokenCount,
  charCount: r.text.length,
  compacted: r.compacted,
  firstPosition: r.firstPosition,
  lastPosition: r.lastPosition,
  childIds: r.childIds,
});

/**
 * A stored row: the summary's fields written out (no spread), its turn ids listed when first
 * read (shared/lazy.ts) — a pass hands a span's ids lazily (makeSpan), and the projected
 * timeline never reads them (~100,000 ids per projection of a long session otherwise).
 */
function memoryRow(s: NewSummary, id: number, callIndex: number): MemorySummary {
  return withLazy<MemorySummary, 'turnIds'>(
    {
      kind: s.kind,
      depth: s.depth,
      text: s.text,
      tokenCount: s.tokenCount,
      tier: s.tier,
      model: s.model,
      promptVersion: s.promptVersion,
      cacheKey: s.cacheKey,
      cacheHit: s.cacheHit,
      firstPosition: s.firstPosition,
      lastPosition: s.lastPosition,
    },
    'turnIds',
    () => s.turnIds ?? [],
    { childSummaryIds: s.childSummaryIds, facts: s.facts, id, compacted: false, callIndex, childIds: s.childSummaryIds ?? [] },
    { settable: true },
  );
}


export class MemoryVariantStore implements VariantStore {
  private readonly rows: MemorySummary[] = [];
  private readonly byId = new Map<number, MemorySummary>();
  private current: VariantState = {};
  private nextId = 1;
  /** The model call the next writes belong to (set by the replay loop). */
  callIndex = 0;
  /** Ids created and compacted by the commits since the last `takeChanges`. */
  private created: number[] = [];
  private folded: number[] = [];

  /** The planners' view, kept in step with `rows` by each commit (replays read it before every call that may fire). */
  private readonly views: ExistingSummary[] = [];
  private snapshot: ExistingSummary[] | null = null;

  summaries(): ExistingSummary[] {
    return (this.snapshot ??= this.views.slice());
  }

  summaryText(id: number): string {
    const r = this.byId.get(id);
    if (!r) throw new Error(`summary ${id} not found in the replay`);
    return r.text;
  }

  summaryFacts(id: number): FactSet | null {
    return this.byId.get(id)?.facts ?? null;
  }

  state(): VariantState {
    return this.current;
  }

  /** The live loop's model-free steps (live.ts): the state their pass would commit, set directly. */
  replaceState(next: VariantState): void {
    this.current = next;
  }

  all(): readonly MemorySummary[] {
    return this.rows;
  }

  /**
   * Empties the store once its replay has been read (the projected timeline's: projection.ts).
   * A finished projection's store is still reachable at V8's next young collection (the run's
   * closures are let go only by a full one): measured on a 100,000-turn dag projection, ~1.1 MB
   * kept past it, 0.3 MB once the store is emptied, and what is kept is promoted to the old
   * generation, frame after frame.
   */
  clear(): void {
    this.rows.length = 0;
    this.views.length = 0;
    this.byId.clear();
    this.snapshot = null;
    this.created = [];
    this.folded = [];
  }

  get(id: number): MemorySummary | undefined {
    return this.byId.get(id);
  }

  /** Summaries created and folded since the last call (the replay's firing record). */
  takeChanges(): { created: number[]; compacted: number[] } {
    const out = { created: this.created, compacted: this.folded };
    this.created = [];
    this.folded = [];
    return out;
  }

  async commit<T>(fn: (w: VariantWriter) => T): Promise<T> {
    const staged: MemorySummary[] = [];
    let stagedState: VariantState | null = null;
    let nextId = this.nextId;
    // What the commit itself sees: the stored summaries plus its own writes so far.
    let view: ExistingSummary[] | null = null;
    const folds = new Set<number>();
    const w: VariantWriter = {
      summaries: () => (view ??= [...this.summaries(), ...staged.map(existingOf)].map((x) => (folds.has(x.id) ? { ...x, compacted: true } : x))),
      state: () => stagedState ?? this.current,
      insertSummary: (s) => {
        const id = nextId++;
        staged.push(memoryRow(s, id, this.callIndex));
        view = null;
        return id;
      },
      markCompacted: (ids) => {
        for (const id of ids) folds.add(id);
        view = null;
      },
      setState: (next) => {
        stagedState = next;
      },
    };
    const result = fn(w);
    // Only now, the commit succeeded: apply everything at once.
    this.nextId = nextId;
    for (const r of staged) {
      this.rows.push(r);
      this.views.push(existingOf(r));
      this.byId.set(r.id, r);
      this.created.push(r.id);
    }
    if (staged.length > 0 || folds.size > 0) this.snapshot = null;
    for (const id of folds) {
      const r = this.byId.get(id);
      if (r && !r.compacted) {
        r.compacted = true;
        const i = r.id - 1; // ids are 1, 2, 3... in insertion order
        this.views[i] = { ...this.views[i], compacted: true };
        this.folded.push(id);
      }
    }
    if (stagedState) this.current = stagedState;
    return result;
  }
}
