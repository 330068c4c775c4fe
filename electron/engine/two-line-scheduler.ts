/**
 * One background task per session for the two-line strategy. A request while the
 * session's task runs only marks it to run ONCE more when it finishes (however many
 * requests arrive meanwhile); nothing else is queued, started or cancelled.
 *
 * How the app uses it (electron/services/compaction-runner.ts): each two-line Compact
 * request becomes `scheduler.request(sessionId, task)`, where the task starts the pass in
 * a worker thread and resolves when that run ends; a request while it runs answers with
 * the current run's ids and `rerunQueued: true`. `whenIdle(sessionId)` waits for the
 * session's task and any rerun (shutdown, tests).
 *
 * The task is the engine's ordinary two-line pass (passes/two-line.ts): at the emergency
 * line it commits the model-free digest first, before any model call, so the context
 * shrinks at once; the slow upgrade then continues inside the same task, with no lock
 * held while the model works and an optimistic check at commit. A rerun picks up what
 * changed meanwhile (e.g. more turns past the kept window). The CLI does not need the
 * scheduler: its `compact` runs the same pass to completion.
 *
 * Keys are session ids (the design's "one task per session"); a task's failure is reported
 * to `onError` and does not stop a pending rerun.
 */

export type RequestOutcome = 'started' | 'rerun-marked' | 'rerun-already-marked';

interface Slot {
  running: Promise<void>;
  rerun: (() => Promise<unknown>) | null;
}

export class TwoLineScheduler {
  private readonly slots = new Map<number, Slot>();

  constructor(private readonly onError: (sessionId: number, error: unknown) => void = () => {}) {}

  /**
   * Starts `task` for the session, or, if one is running, marks the session to run once
   * more afterwards (the most recently requested task is the one that reruns).
   */
  request(sessionId: number, task: () => Promise<unknown>): RequestOutcome {
    const slot = this.slots.get(sessionId);
    if (slot) {
      const outcome: RequestOutcome = slot.rerun ? 'rerun-already-marked' : 'rerun-marked';
      slot.rerun = task;
      return outcome;
    }
    const fresh: Slot = { running: Promise.resolve(), rerun: null };
    this.slots.set(sessionId, fresh);
    fresh.running = this.drive(sessionId, fresh, task);
    return 'started';
  }

  /** True while the session has a task running. */
  isRunning(sessionId: number): boolean {
    return this.slots.has(sessionId);
  }

  /** True when a rerun is marked for the session. */
  hasRerun(sessionId: number): boolean {
    return this.slots.get(sessionId)?.rerun != null;
  }

  /** Resolves when the session has no task running and no rerun pending. */
  async whenIdle(sessionId: number): Promise<void> {
    for (let slot = this.slots.get(sessionId); slot; slot = this.slots.get(sessionId)) await slot.running;
  }

  private async drive(sessionId: number, slot: Slot, first: () => Promise<unknown>): Promise<void> {
    let task: (() => Promise<unknown>) | null = first;
    try {
      while (task) {
        try {
          await task();
        } catch (err) {
          this.onError(sessionId, err);
        }
        task = slot.rerun;
        slot.rerun = null;
      }
    } finally {
      this.slots.delete(sessionId);
    }
  }
}
