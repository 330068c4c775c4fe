/**
 * The window's UI state (what is selected, which strategy and parameters, the running
 * pass, notices) in one small external store read through selectors, so a slider that
 * moves 60 times a second re-renders only the components that read parameters.
 * Server data lives in React Query, not here.
 */
import { useSyncExternalStore } from 'react';
import type { RunStatus } from '../../shared/contract.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import type { ExportFormat } from '../../shared/contract.js';

export type PanelTab = 'dag' | 'context' | 'runs' | 'timeline' | 'variants' | 'compare' | 'sweeps';

export interface ActiveRun {
  runId: number;
  /** A compaction pass (Compact) or a call-by-call replay (Replay). Default 'pass'. */
  kind?: 'pass' | 'replay';
  variantId: number;
  sessionId: number;
  strategy: StrategyName;
  done: number;
  total: number;
  tokens: number;
  message?: string;
  status: RunStatus;
  stats: Record<string, unknown>;
  error: string | null;
  startedAt: number;
  endedAt: number | null;
  /** Cancel was asked for; the pass stops at its next check. */
  cancelling?: boolean;
}

export interface Notice {
  id: number;
  kind: 'error' | 'info' | 'success';
  title: string;
  message?: string;
}

/** What the inspector shows: a DAG node (existing 's<id>' or projected 'p<k>') or a source-tool compaction. */
export type Selection = { kind: 'node'; nodeId: string } | { kind: 'external'; externalId: number } | null;

export interface StudioState {
  sessionId: number | null;
  strategy: StrategyName;
  /** Values the user set, per strategy; unset parameters take the spec default. */
  paramsByStrategy: Partial<Record<StrategyName, Record<string, number>>>;
  selection: Selection;
  tab: PanelTab;
  /** Turn positions whose details are open in the list. */
  expanded: ReadonlySet<number>;
  /** Ask the turn list to bring a position into view (nonce: repeat requests for the same position). */
  scrollRequest: { position: number; nonce: number; align: 'start' | 'center' } | null;
  /** A turn the user jumped to (search hit, "go to"): outlined in the list. */
  focusedPosition: number | null;
  activeRun: ActiveRun | null;
  /** The latest replay started from the window: the timeline shows it while session, strategy and parameters match. */
  lastReplay: { runId: number; variantId: number; sessionId: number; strategy: StrategyName; paramsKey: string } | null;
  /** The model call selected on the timeline. */
  timelineCall: number | null;
  /** Variants the Compare tab shows side by side (2–4; the variant table ticks them, or the tab's own picker). */
  compareVariantIds: number[];
  notices: Notice[];
  exportFormat: ExportFormat;
  settingsOpen: boolean;
  /** Compact runs the pass even when the strategy's trigger says no (off by default: Compact respects the trigger). */
  force: boolean;
  /** Files being imported right now (the Import button shows it). */
  importing: number;
  /** The import in flight (one request): what the header's bar names, its live count from job-progress events, and its id for cancelJob. */
  importJob: ImportJob | null;
  exporting: boolean;
  /** The variant picked in the variant table: shown while the parameters on screen are its own. */
  loadedVariantId: number | null;
}

export interface ImportJob {
  jobId: string;
  label: string;
  bytes: number;
  files: number;
  /** The worker's last word ("12,000 turns"), null until the first job-progress event. */
  message: string | null;
  cancelling?: boolean;
}

type Listener = () => void;

const PERSIST_KEY = 'compaction-studio.ui.v1';

function loadPersisted(): Partial<StudioState> {
  try {
    const raw = window.localStorage.getItem(PERSIST_KEY);
    if (!raw) return {};
    const v = JSON.parse(raw) as Partial<StudioState>;
    return { strategy: v.strategy, paramsByStrategy: v.paramsByStrategy ?? {}, exportFormat: v.exportFormat };
  } catch {
    return {};
  }
}

function createStudioStore() {
  const persisted = loadPersisted();
  let state: StudioState = {
    sessionId: null,
    strategy: persisted.strategy ?? 'dag',
    paramsByStrategy: persisted.paramsByStrategy ?? {},
    selection: null,
    tab: 'dag',
    expanded: new Set(),
    scrollRequest: null,
    focusedPosition: null,
    activeRun: null,
    lastReplay: null,
    timelineCall: null,
    compareVariantIds: [],
    notices: [],
    exportFormat: persisted.exportFormat ?? 'openai',
    settingsOpen: false,
    force: false,
    importing: 0,
    importJob: null,
    exporting: false,
    loadedVariantId: null,
  };
  const listeners = new Set<Listener>();
  let persistTimer: ReturnType<typeof setTimeout> | null = null;
  let noticeSeq = 0;
  let scrollSeq = 0;

  const persist = () => {
    if (persistTimer) clearTimeout(persistTimer);
    // Debounced: a dragged slider must not write localStorage on every frame.
    persistTimer = setTimeout(() => {
      try {
        window.localStorage.setItem(PERSIST_KEY, JSON.stringify({ strategy: state.strategy, paramsByStrategy: state.paramsByStrategy, exportFormat: state.exportFormat }));
      } catch {
        /* storage full or disabled: the UI works without persistence */
      }
    }, 400);
  };

  const set = (patch: Partial<StudioState> | ((s: StudioState) => Partial<StudioState>)) => {
    const next = typeof patch === 'function' ? patch(state) : patch;
    state = { ...state, ...next };
    if ('strategy' in next || 'paramsByStrategy' in next || 'exportFormat' in next) persist();
    for (const l of listeners) l();
  };

  return {
    getState: () => state,
    subscribe(listener: Listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set,
    actions: {
      selectSession(sessionId: number | null) {
        set((s) => ({
          sessionId,
          selection: null,
          timelineCall: null,
          expanded: new Set(),
          scrollRequest: null,
          focusedPosition: null,
          // Ticks and the loaded variant belong to one session.
          ...(s.sessionId !== sessionId ? { loadedVariantId: null, compareVariantIds: [] } : {}),
        }));
      },
      /**
       * Loads a variant from the table: its strategy and parameters become the sliders'
       * values (so its DAG, context and runs show), and it is preferred over a variant of
       * the same parameters made with another summarizer. `asDraft` (Duplicate): the
       * parameters only, nothing created, nothing preferred.
       */
      loadVariant(v: { id: number; strategy: StrategyName; params: Record<string, unknown> }, asDraft = false) {
        const values: Record<string, number> = {};
        for (const [k, x] of Object.entries(v.params)) if (typeof x === 'number') values[k] = x;
        set((s) => ({ strategy: v.strategy, selection: null, paramsByStrategy: { ...s.paramsByStrategy, [v.strategy]: values }, loadedVariantId: asDraft ? null : v.id }));
      },
      setCompareVariantIds(compareVariantIds: number[]) {
        set({ compareVariantIds });
      },
      setStrategy(strategy: StrategyName) {
        set({ strategy, selection: null });
      },
      setParam(strategy: StrategyName, name: string, value: number) {
        set((s) => ({ paramsByStrategy: { ...s.paramsByStrategy, [strategy]: { ...s.paramsByStrategy[strategy], [name]: value } } }));
      },
      resetParams(strategy: StrategyName) {
        set((s) => ({ paramsByStrategy: { ...s.paramsByStrategy, [strategy]: {} } }));
      },
      select(selection: Selection) {
        set({ selection });
      },
      setTab(tab: PanelTab) {
        set({ tab });
      },
      toggleExpanded(position: number) {
        set((s) => {
          const expanded = new Set(s.expanded);
          if (expanded.has(position)) expanded.delete(position);
          else expanded.add(position);
          return { expanded };
        });
      },
      scrollTo(position: number) {
        set({ scrollRequest: { position, nonce: ++scrollSeq, align: 'start' } });
      },
      /** Scrolls a turn to the middle of the list and outlines it. */
      focusTurn(position: number) {
        set({ scrollRequest: { position, nonce: ++scrollSeq, align: 'center' }, focusedPosition: position });
      },
      notify(notice: Omit<Notice, 'id'>) {
        const id = ++noticeSeq;
        // At most three at once; errors stay until dismissed (they must be read), the rest fade out.
        set((s) => ({ notices: [...s.notices.slice(-2), { ...notice, id }] }));
        if (notice.kind !== 'error') setTimeout(() => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })), 5000);
        return id;
      },
      dismiss(id: number) {
        set((s) => ({ notices: s.notices.filter((n) => n.id !== id) }));
      },
      setActiveRun(run: ActiveRun | null) {
        set({ activeRun: run });
      },
      updateActiveRun(runId: number, patch: Partial<ActiveRun>) {
        set((s) => (s.activeRun && s.activeRun.runId === runId ? { activeRun: { ...s.activeRun, ...patch } } : {}));
      },
      setLastReplay(lastReplay: StudioState['lastReplay']) {
        set({ lastReplay, timelineCall: null });
      },
      selectTimelineCall(timelineCall: number | null) {
        set({ timelineCall });
      },
      setExportFormat(exportFormat: ExportFormat) {
        set({ exportFormat });
      },
      setSettingsOpen(settingsOpen: boolean) {
        set({ settingsOpen });
      },
      setForce(force: boolean) {
        set({ force });
      },
    },
  };
}

export const studioStore = createStudioStore();
export const actions = studioStore.actions;

/** Reads a slice of the UI state; the component re-renders only when the slice changes (Object.is). */
export function useStudio<T>(selector: (s: StudioState) => T): T {
  return useSyncExternalStore(studioStore.subscribe, () => selector(studioStore.getState()));
}
