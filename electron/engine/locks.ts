/**
 * Per-session async write locks. A pass that summarizes slowly (no lock held) takes the
 * session's lock only for its check-then-commit step (the two-line and watermark passes),
 * so two writers of one session in the same realm (two-line's emergency digest and its
 * background upgrade, or two passes started by one CLI or test process) never
 * interleave a re-read of the history with another commit.
 *
 * Scope: one JS realm. Within a realm the commit itself is synchronous (better-sqlite3),
 * but the lock also covers the awaits around it and orders waiters FIFO. The app runs
 * each pass in its own worker thread with its own connection, where this lock orders
 * nothing: there the passes run the re-read and the writes in ONE `BEGIN IMMEDIATE`
 * transaction (`db.transaction(fn).immediate()`), which SQLite serializes; the two layers
 * together make "re-read, compare, write" atomic.
 */

type Release = () => void;

/** A FIFO async mutex keyed by session id. */
export class SessionLocks {
  private readonly tails = new Map<number, Promise<void>>();

  /** Runs `fn` holding the session's lock; waiters run in arrival order. */
  async withLock<T>(sessionId: number, fn: () => Promise<T> | T): Promise<T> {
    const release = await this.acquire(sessionId);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** True while someone holds (or waits for) the session's lock. */
  isLocked(sessionId: number): boolean {
    return this.tails.has(sessionId);
  }

  private async acquire(sessionId: number): Promise<Release> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    let release!: Release;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(sessionId, tail);
    await previous;
    return () => {
      release();
      // Last holder out clears the entry so the map does not grow with every session seen.
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    };
  }
}

/** The realm-wide locks the passes' commits use. */
export const sessionLocks = new SessionLocks();

/** Shorthand for `sessionLocks.withLock`. */
export function withSessionLock<T>(sessionId: number, fn: () => Promise<T> | T): Promise<T> {
  return sessionLocks.withLock(sessionId, fn);
}
