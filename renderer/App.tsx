/**
 * The window: header (import, compact, export), sessions on the left, the turn list in
 * the middle, and on the right the strategy with its sliders and gauge above the DAG /
 * Context / Runs panes. Containers read data; the components below take plain props.
 */
import { lazy, Suspense, useEffect } from 'react';
import { useSessions } from './api/queries.js';
import { ContextView } from './components/ContextView.js';
import { DropOverlay, useFileDrop } from './components/DropZone.js';
import { ErrorBoundary } from './components/ErrorBoundary.js';
import { Header, openImportDialog } from './components/Header.js';
import { Inspector } from './components/Inspector.js';
import { Notices } from './components/Notices.js';
import { RunsPanel } from './components/RunsPanel.js';
import { SessionsSidebar } from './components/SessionsSidebar.js';
import { SettingsDialog } from './components/SettingsDialog.js';
import { StrategyPanel } from './components/StrategyPanel.js';
import { TimelinePanel } from './components/TimelinePanel.js';
import { ComparePanel } from './components/ComparePanel.js';
import { TurnList } from './components/TurnList.js';
import { VariantsPanel } from './components/VariantsPanel.js';
import { SweepsPanel } from './components/SweepsPanel.js';
import { useShortcuts } from './hooks/use-shortcuts.js';
import { useStudioCommands, useStudioEvents, type StudioCommands } from './hooks/use-studio-actions.js';
import { useWorkbench, type Workbench } from './plan/use-workbench.js';
import { actions, useStudio, type PanelTab } from './state/store.js';

// React Flow is the largest dependency: load it after the turn list has painted.
const DagView = lazy(() => import('./components/DagView.js'));

const TABS: Array<{ id: PanelTab; label: string }> = [
  { id: 'dag', label: 'DAG' },
  { id: 'context', label: 'Context' },
  { id: 'runs', label: 'Runs' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'variants', label: 'Variants' },
  { id: 'compare', label: 'Compare' },
  { id: 'sweeps', label: 'Sweeps' },
];

/** The plan only masks or drops turns: masking, window, forgetting. */
function isModelFree(wb: Workbench): boolean {
  const plan = wb.plan;
  return !!plan && plan.dag.nodes.length === 0 && wb.summaries.length === 0 && plan.spans.length > 0 && plan.spans.every((s) => s.purpose === 'mask' || s.purpose === 'drop');
}

function AnalysisPanes({ wb, commands }: { wb: Workbench; commands: StudioCommands }) {
  const tab = useStudio((s) => s.tab);
  const hasSelection = useStudio((s) => s.selection !== null);
  return (
    <section className="panes">
      <div className="tabs" role="tablist">
        {TABS.map((t) => (
          <button key={t.id} type="button" role="tab" aria-selected={tab === t.id} className={`tab${tab === t.id ? ' active' : ''}`} data-testid={`tab-${t.id}`} onClick={() => actions.setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </div>
      <div className="pane-body">
        <ErrorBoundary area={tab === 'dag' ? 'DAG' : tab === 'context' ? 'context view' : tab === 'timeline' ? 'timeline' : tab === 'variants' ? 'variant table' : tab === 'compare' ? 'compare view' : tab === 'sweeps' ? 'sweep chart' : 'runs list'} resetKey={`${tab}:${wb.session?.id}:${wb.strategy}`}>
          {tab === 'dag' ? (
            <div className={`dag-pane${hasSelection ? ' with-inspector' : ''}`}>
              <Suspense fallback={<div className="empty-state">Loading the graph…</div>}>
                {wb.listReady || !wb.session ? <DagView sessionId={wb.session?.id ?? null} modelFree={isModelFree(wb)} planDag={wb.plan?.dag ?? null} planError={wb.planError} summaries={wb.summaries} /> : <div className="empty-state">Loading the graph…</div>}
              </Suspense>
              <Inspector wb={wb} />
            </div>
          ) : tab === 'context' ? (
            <ContextView wb={wb} />
          ) : tab === 'timeline' ? (
            <TimelinePanel wb={wb} />
          ) : tab === 'variants' ? (
            <VariantsPanel wb={wb} commands={commands} />
          ) : tab === 'compare' ? (
            <ComparePanel sessionId={wb.session?.id ?? null} />
          ) : tab === 'sweeps' ? (
            <SweepsPanel sessionId={wb.session?.id ?? null} />
          ) : (
            <RunsPanel wb={wb} />
          )}
        </ErrorBoundary>
      </div>
    </section>
  );
}

export function App({ initialSessionId }: { initialSessionId: number | null }) {
  const wb = useWorkbench();
  const commands = useStudioCommands(wb);
  useStudioEvents((command) => void (command === 'export' ? commands.exportCurrent() : commands.compact()));
  const sessions = useSessions();
  const sessionId = useStudio((s) => s.sessionId);

  // Open the deep-linked session, else the first one, once sessions are known; keep the
  // selection valid when its session is deleted.
  useEffect(() => {
    const list = sessions.data;
    if (!list || list.length === 0) return;
    if (sessionId !== null && list.some((s) => s.id === sessionId)) return;
    const wanted = initialSessionId !== null ? list.find((s) => s.id === initialSessionId) : undefined;
    actions.selectSession((wanted ?? list.find((s) => s.parentSessionId === null) ?? list[0]).id);
  }, [sessions.data, sessionId, initialSessionId]);

  useShortcuts({ importFiles: openImportDialog, compact: () => void commands.compact(), exportCurrent: () => void commands.exportCurrent() });
  const dragging = useFileDrop((files) => void commands.importFiles(files));

  return (
    <div className="app">
      <Header wb={wb} commands={commands} />
      <div className="workspace">
        <ErrorBoundary area="sessions list">
          <SessionsSidebar />
        </ErrorBoundary>
        <main className="turns-pane">
          <ErrorBoundary area="turn list" resetKey={wb.session?.id}>
            {sessions.error ? (
              <div className="empty-state error-text">Cannot reach the main process: {(sessions.error as Error).message}</div>
            ) : (
              <TurnList wb={wb} />
            )}
          </ErrorBoundary>
        </main>
        <aside className="side">
          <ErrorBoundary area="strategy panel" resetKey={wb.strategy}>
            <StrategyPanel wb={wb} />
          </ErrorBoundary>
          <AnalysisPanes wb={wb} commands={commands} />
        </aside>
      </div>
      <Notices />
      <SettingsDialog />
      {dragging ? <DropOverlay /> : null}
    </div>
  );
}
