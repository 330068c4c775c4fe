/**
 * `compareVariants`: 2–4 variants of a session side by side with the two baselines. Reads
 * each variant's newest completed replay (electron/store/replays.ts `latestReplayRun`), the
 * messages each sends at the chosen call (the replay's summaries made by then and its state
 * at that call, as `replayContextAt` builds them), and hands them to the pure comparison
 * (shared/compare/). A variant without a replay is a column marked 'not-replayed'; a
 * "compact as of call N" variant (params.asOfCall) is a one-shot column: before call N it
 * sends every turn, from call N on its pass's summaries over the turns since.
 */
import type { DB } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import { listExternalCompactions, listTurnMetas, listTurns } from '../store/turns.js';
import { getVariant, listReplaySummaries, listSummaries } from '../store/variants.js';
import { getReplayTimeline, latestReplayRun, replayStateAt } from '../store/replays.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName } from '../tokenizer.js';
import { StudioError, type SummaryInfo, type VariantInfo } from '../../shared/contract.js';
import { buildReplay } from '../../shared/replay/index.js';
import { callsOf, contextOf } from '../../shared/replay/live.js';
import { assembleComparison, compareContexts, defaultCall, MAX_COMPARED_VARIANTS, type ColumnAtCall, type ColumnTimeline, type CompareColumn, type Comparison } from '../../shared/compare/index.js';
import type { VariantState } from '../../shared/strategies/types.js';

const asOfCallOf = (v: VariantInfo): number | null => (typeof v.params.asOfCall === 'number' ? v.params.asOfCall : null);

function variantLabel(v: VariantInfo): string {
  const asOf = asOfCallOf(v);
  return `#${v.id} ${v.strategy}${asOf !== null ? ` as of call ${asOf}` : ''}`;
}

function columnOf(db: DB, v: VariantInfo): ColumnTimeline {
  const asOfCall = asOfCallOf(v);
  const runId = asOfCall === null ? latestReplayRun(db, v.id) : null;
  const timeline = runId === null ? null : getReplayTimeline(db, runId);
  const column: CompareColumn = {
    key: `v${v.id}`,
    kind: 'variant',
    label: variantLabel(v),
    variantId: v.id,
    runId: timeline ? runId : null,
    strategy: v.strategy,
    params: v.params,
    asOfCall,
    status: asOfCall !== null ? 'one-shot' : timeline ? 'replayed' : 'not-replayed',
  };
  return { column, timeline };
}

export interface CompareRequest {
  sessionId: number;
  variantIds: readonly number[];
  call?: number;
}

export function compareVariants(db: DB, o: CompareRequest): Comparison {
  const session = getSession(db, o.sessionId);
  if (!session) throw new StudioError('not_found', `session ${o.sessionId} does not exist`);
  const ids = [...new Set(o.variantIds)];
  if (ids.length < 1 || ids.length > MAX_COMPARED_VARIANTS) throw new StudioError('invalid_input', `compare 1 to ${MAX_COMPARED_VARIANTS} variants, got ${ids.length}`);
  const variants = ids.map((id) => {
    const v = getVariant(db, id);
    if (!v || v.sessionId !== o.sessionId) throw new StudioError('not_found', `variant ${id} does not exist in session ${o.sessionId}`);
    return v;
  });
  const columns = variants.map((v) => columnOf(db, v));
  const calls = callsOf(listTurnMetas(db, o.sessionId));
  const call = o.call ?? defaultCall(columns) ?? (calls.length > 0 ? calls.length - 1 : null);
  if (call !== null && (call < 0 || call >= calls.length)) throw new StudioError('invalid_input', `call ${call} is out of range: the session has ${calls.length} model calls`);

  let context: Comparison['context'] = null;
  if (call !== null) {
    const position = calls[call].position;
    const tokenizer = isTokenizerName(session.tokenizer) ? session.tokenizer : DEFAULT_TOKENIZER;
    const memo = new Map<string, number>();
    const count = (t: string) => {
      let n = memo.get(t);
      if (n === undefined) memo.set(t, (n = countTokens(t, tokenizer)));
      return n;
    };
    const turns = listTurns(db, o.sessionId, { from: 0, to: position });
    const base = columns.find((c) => c.timeline)?.timeline ?? null;
    const at: ColumnAtCall[] = [];
    for (const { column, timeline } of columns) {
      const v = variants.find((x) => x.id === column.variantId)!;
      let summaries: SummaryInfo[] = [];
      let state: VariantState = {};
      if (timeline && column.runId !== null) {
        summaries = listReplaySummaries(db, column.runId)
          .filter((s) => s.callIndex <= call)
          .map((s) => ({ ...s, compacted: s.compactedAtCall !== null && s.compactedAtCall <= call }));
        state = replayStateAt(db, column.runId, call);
      } else if (column.asOfCall !== null && call >= column.asOfCall) {
        summaries = listSummaries(db, v.id);
        state = v.state;
      } else if (column.status === 'not-replayed') continue; // nothing to read until it is replayed
      const r = buildReplay({ strategy: v.strategy, turns, summaries, state, params: v.params, countTokens: count });
      at.push({
        key: column.key,
        // A one-shot pass has no timeline: its view through the session's context model (a + b × view).
        contextTokens: timeline ? timeline.calls.context[call] : base ? contextOf(base.contextModel, r.totalTokens) : null,
        messages: r.messages,
        summaries: summaries.map((s) => ({ id: s.id, kind: s.kind, depth: s.depth, firstPosition: s.firstPosition, lastPosition: s.lastPosition, tokens: s.tokenCount, text: s.text })),
      });
    }
    context = compareContexts({
      call,
      position,
      turns,
      columns: at,
      external: listExternalCompactions(db, o.sessionId),
      baselineContext: { none: base ? base.baselines.none.context[call] : null, source: base ? base.baselines.source.context[call] : null },
    });
  }
  return assembleComparison({ sessionId: session.id, sessionTitle: session.title, columns, context });
}
