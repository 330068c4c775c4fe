/**
 * One background task per conversation for the two-line strategy. In the app a
 * conversation is a (session, variant) pair: its key is `conversationKey(sessionId,
 * variantKey)`. A request while the conversation's task runs only marks it to run ONCE
 * more when it finishes (however many requests arrive meanwhile); nothing else is queued,
 * started or cancelled. Other conversations of the same session are independent tasks.
 *
 * How the app uses it (electron/services/compaction-runner.ts): each two-line Compact
 * request becomes `scheduler.request(key, task)`, where the task starts the pass in a
 * worker thread and resolves when that run ends; a request while it runs answers with the
 * current run's ids and `rerunQueued: true`. `whenIdle(key)` waits for the conversation's
 * task and any rerun (shutdown, tests).
 *
 * The task is the engine's ordinary two-line pass (passes/two-line.ts): at the emergency
 * line it commits the model-free digest first, before any model call, so the context
 * shrinks at once; the slow upgrade then continues inside the same task, with no lock
 * held while the model works and an optimistic check at commit. A rerun picks up what
 * changed meanwhile (e.g. more turns past the kept window). The CLI does not need the
 * scheduler: its `compact` runs the same pass to completion.
 *
 * A task's failure is reported to `onError` and does not stop a pending rerun.
 */

/** The key of one conversation: a session and the variant key of what runs on it. */
export function conversationKey(sessionId: number, variantKey: string): string {
  return `${sessionId}:${variantKey}`;
}

/** The session of a conversation key. */
export function sessionOfKey(key: string): number {
  return Number(key.slice(0, key.indexOf(':')));
}

export type RequestOutcome = 'started' | 'rerun-marked' | 'rerun-already-marked';

interface Slot {
  running: Promise<void>;
  rerun: (() => Promise<unknown>) | null;
}

export class TwoLineScheduler {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly onError: (key: string, error: unknown) => void = () => {}) {}

  /**
   * Starts `task` for the conversation, or, if one is running, marks it to run once more
   * afterwards (the most recently requested task is the one that reruns).
   */
  request(key: string, task: () => Promise<unknown>): RequestOutcome {
    const slot = this.slots.get(key);
    if (slot) {
      const outcome: RequestOutcome = slot.rerun ? 'rerun-already-marked' : 'rerun-marked';
      slot.rerun = task;
      return outcome;
    }
    const fresh: Slot = { running: Promise.resolve(), rerun: null };
    this.slots.set(key, fresh);
    fresh.running = this.drive(key, fresh, task);
    return 'started';
  }

  /** True while the conversation has a task running. */
  isRunning(key: string): boolean {
    return this.slots.has(key);
  }

  /** True when a rerun is marked for the conversation. */
  hasRerun(key: string): boolean {
    return this.slots.get(key)?.rerun != null;
  }

  /** The conversations with a task running. */
  keys(): string[] {
    return [...this.slots.keys()];
  }

  /** Resolves when the conversation has no task running and no rerun pending. */
  async whenIdle(key: string): Promise<void> {
    for (let slot = this.slots.get(key); slot; slot = this.slots.get(key)) await slot.running;
  }

  private async drive(key: string, slot: Slot, first: () => Promise<unknown>): Promise<void> {
    let task: (() => Promise<unknown>) | null = first;
    try {
      while (task) {
        try {
          await task();
        } catch (err) {
          this.onError(key, err);
        }
        task = slot.rerun;
        slot.rerun = null;
      }
    } finally {
      this.slots.delete(key);
    }
  }
}
