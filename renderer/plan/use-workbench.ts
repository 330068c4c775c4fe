/**
 * The window's central derived state: the selected session's turn metas, the strategy's
 * parameters, the variant they resolve to (with its summaries), and the plan recomputed IN
 * THE WINDOW with the shared planner on every parameter change — no summarizer call, no
 * round trip — so boundaries, the projected DAG and the token gauge follow a moving slider.
 */
import { useDeferredValue, useMemo } from 'react';
import { STRATEGY_DEFINITIONS, planFor } from '../../shared/strategies/index.js';
import { sessionMeasure } from '../../shared/replay/measure-at.js';
import { defaultsOf, type ParamSpec } from '../../shared/strategies/params.js';
import type { Plan, StrategyName, VariantState } from '../../shared/strategies/types.js';
import type { SessionInfo, SummaryInfo, TurnMetaColumns, VariantInfo } from '../../shared/contract.js';
import type { TurnMeta } from '../../shared/model/turn.js';
import { stableJson } from '../../shared/model/turn.js';
import { useFirstTurnPage, useFoundVariant, useSessions, useSummaries, useTurnMetaColumns, useSessionUsage } from '../api/queries.js';
import { useDebounced } from '../hooks/use-debounced.js';
import { recordPlanMs } from '../perf.js';
import { useStudio } from '../state/store.js';
import { metasFromColumns } from './metas.js';
import { planAsStored } from './stored-state.js';

export interface Workbench {
  session: SessionInfo | null;
  strategy: StrategyName;
  specs: readonly ParamSpec[];
  /** Every parameter of the strategy: the user's values over the spec defaults. */
  params: Record<string, number>;
  paramsKey: string;
  /**
   * The first page of turns has arrived: the heavier reads (every turn's metas, the
   * variant, session details, the DAG's code) start only then. The browser-mode server
   * answers one request at a time, so this keeps them from delaying the first paint.
   */
  listReady: boolean;
  columns: TurnMetaColumns | undefined;
  metas: readonly TurnMeta[];
  /** The existing variant for exactly these parameters (null while they are still moving, and for a draft). */
  variant: VariantInfo | null;
  /**
   * The parameters on screen have settled and no variant has them: a draft. Moving a
   * slider never creates a variant; Compact, Replay and Save do.
   */
  draft: boolean;
  variantError: Error | null;
  summaries: readonly SummaryInfo[];
  plan: Plan | null;
  planError: string | null;
  planMs: number;
  /**
   * The plan's spans are already in effect in the variant's stored state (masking and
   * window after their pass): the list shows them as masked / dropped, not planned.
   */
  planApplied: boolean;
}

const EMPTY_METAS: readonly TurnMeta[] = [];
const EMPTY_SUMMARIES: readonly SummaryInfo[] = [];
const EMPTY_STATE: VariantState = {};
const EMPTY_OVERRIDES: Record<string, number> = {};

/** How long parameters must stay still before the variant is looked up on the server. */
const VARIANT_SETTLE_MS = 220;

export function useWorkbench(): Workbench {
  const sessionId = useStudio((s) => s.sessionId);
  const strategy = useStudio((s) => s.strategy);
  const overrides = useStudio((s) => s.paramsByStrategy[s.strategy] ?? EMPTY_OVERRIDES);
  const sessions = useSessions();
  const session = useMemo(() => sessions.data?.find((s) => s.id === sessionId) ?? null, [sessions.data, sessionId]);

  const specs = STRATEGY_DEFINITIONS[strategy].specs;
  const params = useMemo(() => {
    const out = defaultsOf(specs);
    // Only names the current specs know: values persisted by an older build are ignored.
    for (const spec of specs) if (typeof overrides[spec.name] === 'number') out[spec.name] = overrides[spec.name];
    return out;
  }, [specs, overrides]);
  const paramsKey = useMemo(() => stableJson(params), [params]);

  const firstPage = useFirstTurnPage(sessionId);
  const listReady = sessionId !== null && (firstPage.isSuccess || firstPage.isError);
  const metaQuery = useTurnMetaColumns(listReady ? sessionId : null);
  const columns = metaQuery.data;
  const metas = useMemo(() => (columns ? metasFromColumns(columns) : EMPTY_METAS), [columns]);

  // The variant is identified by its parameters: look it up once they settle (a read, never
  // a write), and use its summaries only while the parameters on screen are exactly its own.
  const loadedVariantId = useStudio((s) => s.loadedVariantId);
  const settledParams = useDebounced(params, VARIANT_SETTLE_MS);
  const settledKey = useMemo(() => stableJson(settledParams), [settledParams]);
  const variantQuery = useFoundVariant(listReady ? sessionId : null, strategy, settledParams, settledKey, loadedVariantId);
  const settled = settledKey === paramsKey && variantQuery.isSuccess && !variantQuery.isPlaceholderData;
  const variant = settled && variantQuery.data && variantQuery.data.strategy === strategy ? variantQuery.data : null;
  const draft = settled && variantQuery.data === null;
  const summariesQuery = useSummaries(variant?.id ?? null);
  const summaries = (variant && summariesQuery.data) || EMPTY_SUMMARIES;
  const state = variant?.state ?? EMPTY_STATE;

  // A slow planner must not hold the slider thumb back: plan with deferred inputs, kept
  // together so a strategy switch never meets the previous strategy's parameters.
  // The context measure the replay and Compact use (shared/replay/measure-at.ts): the session's usage fit, once loaded.
  const usage = useSessionUsage(listReady ? sessionId : null);
  const fit = usage.data?.overhead ?? null;
  const planInput = useMemo(() => ({ strategy, params, summaries, state, fit }), [strategy, params, summaries, state, fit]);
  const deferred = useDeferredValue(planInput);
  const planned = useMemo(() => {
    if (!columns) return { plan: null, planError: null, planMs: 0, planApplied: false };
    const t0 = performance.now();
    try {
      const input = { turns: metas, summaries: deferred.summaries, state: deferred.state, params: deferred.params, measure: sessionMeasure({ fit: deferred.fit }, deferred.params), reported: null };
      const fresh = planFor(deferred.strategy, input);
      const planMs = performance.now() - t0;
      recordPlanMs(planMs);
      const { plan, applied } = planAsStored(deferred.strategy, input, fresh);
      return { plan, planError: null, planMs, planApplied: applied };
    } catch (err) {
      return { plan: null, planError: (err as Error).message, planMs: performance.now() - t0, planApplied: false };
    }
  }, [columns, metas, deferred]);

  return {
    session,
    strategy,
    specs,
    params,
    paramsKey,
    listReady,
    columns,
    metas,
    variant,
    draft,
    variantError: (variantQuery.error as Error | null) ?? null,
    summaries,
    ...planned,
  };
}
