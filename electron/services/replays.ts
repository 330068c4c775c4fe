/**
 * The window's replay operations: start a replay in the background (progress and the end
 * arrive as the same StudioEvents a pass sends), read its timeline, and show what the
 * model saw at one of its calls.
 *
 * Replays run in this process, not in the pass worker: the live loop yields to the event
 * loop every 256 calls and before every summary, so the server keeps answering; cancel
 * aborts the replay's signal.
 */
import type { DB } from '../store/db.js';
import { listTurns } from '../store/turns.js';
import { listReplaySummaries } from '../store/variants.js';
import { getReplayTimeline, getRunRow, replayStateAt } from '../store/replays.js';
import { getVariant } from '../store/variants.js';
import { runReplay, type RunReplayOptions } from '../engine/replay.js';
import { buildReplay } from '../../shared/replay/index.js';
import { StudioError, type OperationResults, type StudioEvent } from '../../shared/contract.js';
import { countTokens, DEFAULT_TOKENIZER } from '../tokenizer.js';
import { getSession } from '../store/sessions.js';
import { isTokenizerName } from '../tokenizer.js';

export class ReplayRunner {
  private readonly running = new Map<number, AbortController>();

  constructor(private readonly db: DB, private readonly emit: (e: StudioEvent) => void) {}

  /** Starts a replay; answers once its run exists. */
  start(o: Omit<RunReplayOptions, 'signal' | 'onProgress' | 'onRunStarted'>): Promise<{ runId: number; variantId: number }> {
    const controller = new AbortController();
    return new Promise((resolve, reject) => {
      let started = false;
      runReplay(this.db, {
        ...o,
        signal: controller.signal,
        onRunStarted: (ids) => {
          started = true;
          this.running.set(ids.runId, controller);
          resolve(ids);
        },
        onProgress: (p) => this.emit({ type: 'run-progress', runId: p.runId, variantId: p.variantId, done: p.done, total: p.total, tokens: p.tokens, message: p.message }),
      }).then(
        (r) => {
          this.running.delete(r.runId);
          this.emit({ type: 'run-finished', runId: r.runId, variantId: r.variantId, status: r.status, stats: r.timeline ? { ...r.timeline.totals, kind: 'replay' } : { kind: 'replay' }, error: r.error });
        },
        (err) => {
          if (!started) reject(err);
        },
      );
    });
  }

  cancel(runId: number): boolean {
    const c = this.running.get(runId);
    if (!c) return false;
    c.abort();
    return true;
  }
}

export function replayTimeline(db: DB, runId: number): OperationResults['getReplayRun'] {
  const run = getRunRow(db, runId);
  if (!run || run.kind !== 'replay') throw new StudioError('not_found', `replay run ${runId} does not exist`);
  const t = getReplayTimeline(db, runId);
  if (!t) throw new StudioError('not_found', `replay run ${runId} has no timeline (status ${run.status})`);
  return t;
}

/** What the model saw at call `call` of a replay: the turns before it under the summaries and state of that moment. */
export function replayContextAt(db: DB, runId: number, call: number): OperationResults['replayContextAt'] {
  const timeline = replayTimeline(db, runId);
  const position = timeline.calls.position[call];
  if (position === undefined) throw new StudioError('invalid_input', `call ${call} is out of range: the replay has ${timeline.calls.position.length} calls`);
  const variant = getVariant(db, timeline.variantId);
  const session = getSession(db, timeline.sessionId);
  const tokenizer = session && isTokenizerName(session.tokenizer) ? session.tokenizer : DEFAULT_TOKENIZER;
  const all = listReplaySummaries(db, runId);
  const summaries = all.filter((s) => s.callIndex <= call).map((s) => ({ ...s, compacted: s.compactedAtCall !== null && s.compactedAtCall <= call }));
  const turns = listTurns(db, timeline.sessionId).slice(0, position);
  const r = buildReplay({ strategy: timeline.strategy, turns, summaries, state: replayStateAt(db, runId, call), params: variant?.params ?? timeline.params, countTokens: (t) => countTokens(t, tokenizer) });
  return { variantId: timeline.variantId, messages: r.messages, totalTokens: r.totalTokens, call, position, summaries: all.filter((s) => s.callIndex === call) };
}
