/**
 * React Query hooks over the StudioApi: one hook per read, keyed so that immutable data
 * (turn pages, turn metas) is fetched once per session and everything a pass changes
 * (variants, summaries, runs, replay) is invalidated when the pass finishes.
 */
import { createContext, useContext } from 'react';
import { keepPreviousData, useQueries, useQuery, type QueryClient } from '@tanstack/react-query';
import type { ParamsSchema, RunInfo, StudioApi, VariantInfo } from '../../shared/contract.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { Turn } from '../../shared/model/turn.js';
import type { z } from 'zod';
import type { StudioTransport } from './transport.js';

export const TransportContext = createContext<StudioTransport | null>(null);

export function useTransport(): StudioTransport {
  const t = useContext(TransportContext);
  if (!t) throw new Error('TransportContext missing: the window was rendered without a transport');
  return t;
}

export function useApi() {
  return useTransport().api;
}

/** Rows fetched per listTurns call: large enough that a fast scroll needs few round trips. */
export const TURN_PAGE_SIZE = 200;

export const keys = {
  sessions: ['sessions'] as const,
  session: (id: number) => ['session', id] as const,
  turnMetas: (id: number) => ['turnMetas', id] as const,
  turnPage: (id: number, page: number) => ['turns', id, page] as const,
  variant: (sessionId: number, strategy: StrategyName, paramsKey: string) => ['variant', sessionId, strategy, paramsKey] as const,
  variants: (sessionId: number) => ['variants', sessionId] as const,
  summaries: (variantId: number) => ['summaries', variantId] as const,
  runs: (variantId: number) => ['runs', variantId] as const,
  sessionReplays: (sessionId: number) => ['sessionReplays', sessionId] as const,
  replay: (variantId: number) => ['replay', variantId] as const,
  draftReplay: (sessionId: number, strategy: StrategyName, paramsKey: string) => ['draftReplay', sessionId, strategy, paramsKey] as const,
  sessionUsage: (sessionId: number) => ['sessionUsage', sessionId] as const,
  replayRun: (runId: number) => ['replayRun', runId] as const,
  replayContextAt: (runId: number, call: number) => ['replayContextAt', runId, call] as const,
  settings: ['settings'] as const,
  sweeps: ['sweeps'] as const,
  sweep: (sweepId: number) => ['sweep', sweepId] as const,
  comparison: (sessionId: number, variantIds: readonly number[], call: number | null) => ['compare', sessionId, variantIds.join(','), call] as const,
};

export function useSessions() {
  const api = useApi();
  return useQuery({ queryKey: keys.sessions, queryFn: () => api.listSessions({}) });
}

export function useSessionDetail(sessionId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.session(sessionId ?? 0),
    queryFn: () => api.getSession({ sessionId: sessionId! }),
    enabled: sessionId !== null,
  });
}

/** Every turn's planning columns: immutable once imported, so fetched once per session. */
export function useTurnMetaColumns(sessionId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.turnMetas(sessionId ?? 0),
    queryFn: () => api.turnMetas({ sessionId: sessionId! }),
    enabled: sessionId !== null,
    staleTime: Infinity,
    gcTime: 5 * 60_000,
  });
}

/**
 * One page of full turns. The range is not clamped to the session's length (the store
 * returns what exists), so the first page can be asked for before the session list
 * has answered: it is what the first paint waits for.
 */
function turnPageQuery(api: StudioApi, sessionId: number | null, page: number) {
  return {
    queryKey: keys.turnPage(sessionId ?? 0, page),
    queryFn: () => api.listTurns({ sessionId: sessionId!, from: page * TURN_PAGE_SIZE, to: (page + 1) * TURN_PAGE_SIZE }),
    enabled: sessionId !== null,
    staleTime: Infinity,
    gcTime: 2 * 60_000,
  };
}

/** The session's first page; the heavier reads (metas, variant, details) wait for it. */
export function useFirstTurnPage(sessionId: number | null) {
  const api = useApi();
  return useQuery(turnPageQuery(api, sessionId, 0));
}

/**
 * Full turns for the pages the list currently shows. Turns never change, so pages are
 * cached forever for the session; scrolling back is instant.
 */
export function useTurnPages(sessionId: number | null, pages: readonly number[]): Map<number, Turn[]> {
  const api = useApi();
  const results = useQueries({ queries: pages.map((page) => turnPageQuery(api, sessionId, page)) });
  const byPage = new Map<number, Turn[]>();
  results.forEach((r, i) => {
    if (r.data) byPage.set(pages[i], r.data);
  });
  return byPage;
}

type Params = z.infer<typeof ParamsSchema>;

/**
 * The existing variant for (session, strategy, params), or null for a draft: a lookup,
 * never a write (variants are made by Compact, Replay and Save). `loadedVariantId`: the
 * variant picked in the variant table, preferred while these are its parameters.
 */
export function useFoundVariant(sessionId: number | null, strategy: StrategyName, params: Params, paramsKey: string, loadedVariantId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.variant(sessionId ?? 0, strategy, `${paramsKey}@${loadedVariantId ?? ''}`),
    queryFn: () => api.findVariant({ sessionId: sessionId!, strategy, params, ...(loadedVariantId !== null ? { variantId: loadedVariantId } : {}) }),
    enabled: sessionId !== null,
    retry: false,
  });
}

/** The session's variant table (one request, one SQL statement on the server). */
export function useVariantList(sessionId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.variants(sessionId ?? 0),
    queryFn: () => api.listVariants({ sessionId: sessionId! }),
    enabled: sessionId !== null,
    placeholderData: keepPreviousData,
  });
}

/** What the model would receive under draft parameters (no variant yet). */
export function useDraftReplay(sessionId: number | null, strategy: StrategyName, params: Params, paramsKey: string, enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: keys.draftReplay(sessionId ?? 0, strategy, paramsKey),
    queryFn: () => api.replayDraft({ sessionId: sessionId!, strategy, params }),
    enabled: enabled && sessionId !== null,
    retry: false,
  });
}

export function useSummaries(variantId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.summaries(variantId ?? 0),
    queryFn: () => api.listSummaries({ variantId: variantId! }),
    enabled: variantId !== null,
  });
}

export function useRuns(variantId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.runs(variantId ?? 0),
    queryFn: () => api.listRuns({ variantId: variantId! }),
    enabled: variantId !== null,
    placeholderData: keepPreviousData,
  });
}

export function useReplay(variantId: number | null, enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: keys.replay(variantId ?? 0),
    queryFn: () => api.replay({ variantId: variantId! }),
    enabled: enabled && variantId !== null,
    retry: false,
  });
}

/** The source's reported usage per call and the overhead fit: immutable once imported. */
export function useSessionUsage(sessionId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.sessionUsage(sessionId ?? 0),
    queryFn: () => api.sessionUsage({ sessionId: sessionId! }),
    enabled: sessionId !== null,
    staleTime: Infinity,
    retry: false,
  });
}

/** A completed replay of the session, with the variant it replayed. */
export interface SessionReplay {
  run: RunInfo;
  variant: VariantInfo;
}

/** The session's completed replay runs over all its variants (listVariants, then listRuns per variant with runs), newest first. */
export function useSessionReplays(sessionId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.sessionReplays(sessionId ?? 0),
    queryFn: async (): Promise<SessionReplay[]> => {
      const variants = (await api.listVariants({ sessionId: sessionId! })).filter((v) => v.runs > 0);
      const runs = await Promise.all(variants.map((v) => api.listRuns({ variantId: v.id })));
      const out: SessionReplay[] = [];
      variants.forEach((variant, i) => {
        for (const run of runs[i]) if (run.kind === 'replay' && run.status === 'completed') out.push({ run, variant });
      });
      return out.sort((x, y) => y.run.id - x.run.id);
    },
    enabled: sessionId !== null,
    placeholderData: keepPreviousData,
  });
}

/** Several replay runs' timelines at once (the overlays), in the order asked. */
export function useReplayRuns(runIds: readonly number[]) {
  const api = useApi();
  return useQueries({
    queries: runIds.map((runId) => ({ queryKey: keys.replayRun(runId), queryFn: () => api.getReplayRun({ runId }), retry: false, staleTime: Infinity })),
  });
}

/** A replay run's timeline (per call context and cost, firings, totals, baselines); refetched when the run finishes. */
export function useReplayRun(runId: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.replayRun(runId ?? 0),
    queryFn: () => api.getReplayRun({ runId: runId! }),
    enabled: runId !== null,
    retry: false,
  });
}

/** What the model saw at one call of a finished replay, and the summaries made there. */
export function useReplayContextAt(runId: number | null, call: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.replayContextAt(runId ?? 0, call ?? -1),
    queryFn: () => api.replayContextAt({ runId: runId!, call: call! }),
    enabled: runId !== null && call !== null,
    staleTime: Infinity,
    retry: false,
  });
}

/** The session's variants (the Compare tab's picker). */
export function useVariants(sessionId: number | null) {
  const api = useApi();
  return useQuery({ queryKey: keys.variants(sessionId ?? 0), queryFn: () => api.listVariants({ sessionId: sessionId! }), enabled: sessionId !== null });
}

/** Variants side by side (compareVariants): totals, per-call series, the contexts at `call` (null: the service's default call). */
export function useComparison(sessionId: number | null, variantIds: readonly number[], call: number | null) {
  const api = useApi();
  return useQuery({
    queryKey: keys.comparison(sessionId ?? 0, variantIds, call),
    queryFn: () => api.compareVariants({ sessionId: sessionId!, variantIds: [...variantIds], ...(call === null ? {} : { call }) }),
    enabled: sessionId !== null && variantIds.length > 0,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useSettings(enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: keys.settings, queryFn: () => api.getSettings({}), enabled });
}

/** After a pass: everything derived from the variant's summaries is stale. */
export function invalidateVariantData(client: QueryClient, sessionId: number, variantId: number): void {
  void client.invalidateQueries({ queryKey: ['variant', sessionId] });
  void client.invalidateQueries({ queryKey: keys.variants(sessionId) });
  void client.invalidateQueries({ queryKey: keys.summaries(variantId) });
  void client.invalidateQueries({ queryKey: keys.runs(variantId) });
  void client.invalidateQueries({ queryKey: keys.sessionReplays(sessionId) });
  void client.invalidateQueries({ queryKey: keys.replay(variantId) });
  void client.invalidateQueries({ queryKey: ['compare', sessionId] });
}

/** Every stored sweep (the `sweep` CLI writes them; a sweep spans sessions), newest first. */
export function useSweeps() {
  const api = useApi();
  return useQuery({ queryKey: keys.sweeps, queryFn: () => api.listSweeps({}) });
}

/** A sweep with its rows (getSweep). */
export function useSweep(sweepId: number | null) {
  const api = useApi();
  return useQuery({ queryKey: keys.sweep(sweepId ?? 0), queryFn: () => api.getSweep({ sweepId: sweepId! }), enabled: sweepId !== null });
}
