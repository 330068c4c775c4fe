/**
 * The title bar: the open session, Import (file input, testid import-input), Compact with
 * the running pass's progress (compaction-progress) and Cancel, Export with its format,
 * and Settings. Shortcuts are shown in the tooltips.
 */
import { memo, useRef } from 'react';
import { ExportFormatSchema, type ExportFormat } from '../../shared/contract.js';
import { formatBytes, formatCompact, formatDuration, formatInt } from '../format.js';
import { pickedFromInput } from '../hooks/picked-files.js';
import type { StudioCommands } from '../hooks/use-studio-actions.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions, useStudio, type ActiveRun, type ImportJob } from '../state/store.js';

const MOD = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl+';

const FORMAT_LABEL: Record<ExportFormat, string> = {
  openai: 'OpenAI JSON',
  anthropic: 'Anthropic JSON',
  jsonl: 'JSONL',
  markdown: 'Markdown',
  dag: 'DAG JSON',
};

function CompactionProgress({ run, onCancel }: { run: ActiveRun; onCancel(): void }) {
  const running = run.status === 'running';
  const ratio = run.total > 0 ? Math.min(1, run.done / run.total) : running ? 0 : 1;
  const elapsed = (run.endedAt ?? Date.now()) - run.startedAt;
  return (
    <div className={`progress progress-${run.status}`} data-testid="compaction-progress" data-status={run.status} data-done={run.done} data-total={run.total} role="status" aria-live="polite">
      <div className="progress-text">
        <span className="progress-title" title={`Run #${run.runId}${!running ? ` took ${formatDuration(elapsed)}` : ''}${run.message ? `: ${run.message}` : ''}`}>
          #{run.runId} <span className="progress-status">{running ? (run.cancelling ? 'cancelling…' : run.kind === 'replay' ? 'replaying' : 'compacting') : run.status}</span>
        </span>
        <span className="mono" data-testid="compaction-progress-count">
          {formatInt(run.done)}/{formatInt(run.total)}
        </span>
        {run.tokens > 0 ? <span className="muted mono">{formatCompact(run.tokens)} tok</span> : null}
      </div>
      <div className="progress-track">
        <div className={`progress-bar${running && run.total === 0 ? ' indeterminate' : ''}`} style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
      </div>
      {running ? (
        <button type="button" className="btn btn-small btn-danger-ghost" data-testid="cancel-button" disabled={run.cancelling} onClick={onCancel}>
          Cancel
        </button>
      ) : (
        <button type="button" className="btn btn-ghost btn-small" aria-label="Dismiss" onClick={() => actions.setActiveRun(null)}>
          ✕
        </button>
      )}
    </div>
  );
}

/** The import in flight: one request, so no count to show; the bar moves until it answers. */
function ImportProgress({ job, onCancel }: { job: ImportJob; onCancel(): void }) {
  return (
    <div className="progress progress-running import-progress" data-testid="import-progress" role="status" aria-live="polite">
      <div className="progress-text">
        <span className="progress-title">{job.cancelling ? 'Cancelling' : 'Importing'}</span>
        <span className="import-name" title={job.label}>{job.label}</span>
        <span className="muted mono" data-testid="import-progress-count">{job.message ?? formatBytes(job.bytes)}</span>
      </div>
      <div className="progress-track">
        <div className="progress-bar indeterminate" />
      </div>
      <button type="button" className="btn btn-small btn-danger-ghost" data-testid="import-cancel-button" disabled={job.cancelling} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export const Header = memo(function Header({ wb, commands }: { wb: Workbench; commands: StudioCommands }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const importJob = useStudio((s) => s.importJob);
  const activeRun = useStudio((s) => s.activeRun);
  const exportFormat = useStudio((s) => s.exportFormat);
  const importing = useStudio((s) => s.importing);
  const exporting = useStudio((s) => s.exporting);
  const force = useStudio((s) => s.force);
  const running = activeRun?.status === 'running';
  const hasSession = wb.session !== null;

  return (
    <header className="header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="brand-name">Compaction Studio</span>
      </div>
      <div className="header-session" title={wb.session?.sourceFile}>
        {wb.session ? (
          <>
            <span className="header-session-title">{wb.session.title}</span>
            <span className="chip">{wb.session.format}</span>
          </>
        ) : (
          <span className="muted">No session</span>
        )}
      </div>
      <div className="header-actions">
        <input
          ref={inputRef}
          id="import-input"
          data-testid="import-input"
          className="visually-hidden"
          type="file"
          multiple
          onChange={(e) => {
            const files = pickedFromInput(e.currentTarget.files, false);
            e.currentTarget.value = '';
            if (files.length > 0) void commands.importFiles(files);
          }}
        />
        <input
          ref={folderRef}
          data-testid="import-folder-input"
          className="visually-hidden"
          type="file"
          // A folder: every file in it with its relative path (webkitRelativePath).
          {...{ webkitdirectory: '' }}
          multiple
          onChange={(e) => {
            const files = pickedFromInput(e.currentTarget.files, true);
            e.currentTarget.value = '';
            if (files.length > 0) void commands.importFiles(files);
            else actions.notify({ kind: 'info', title: 'No transcripts in that folder' });
          }}
        />
        {importJob ? (
          <ImportProgress job={importJob} onCancel={() => void commands.cancelImport()} />
        ) : null}
        <div className="btn-group">
          <button type="button" className="btn" data-testid="import-button" disabled={importing > 0} onClick={() => inputRef.current?.click()} title={`Import transcripts, one or several (${MOD}O), or drop files or a folder on the window`}>
            {importing > 0 ? 'Importing…' : 'Import'}
          </button>
          <button type="button" className="btn" data-testid="import-folder-button" disabled={importing > 0} onClick={() => folderRef.current?.click()} title="Import a folder (a Claude Code project directory: every session with its subagents)">
            <span className="import-folder-long">Import folder…</span>
            <span className="import-folder-short">Folder…</span>
          </button>
        </div>
        <span className="divider" aria-hidden="true" />
        {activeRun ? <CompactionProgress run={activeRun} onCancel={() => void commands.cancel()} /> : null}
        {/* Never hidden at narrow widths: whether Compact forces is a choice the user must see. */}
        <label className={`check check-force${force ? ' on' : ''}`} title="Force: run the pass even when the strategy's trigger says no compaction is needed. Off: Compact runs only when the trigger fires (as the strategy's design does)">
          <input type="checkbox" data-testid="force-toggle" checked={force} onChange={(e) => actions.setForce(e.currentTarget.checked)} />
          <span>Force</span>
        </label>
        <button type="button" className="btn btn-primary" data-testid="compact-button" disabled={!hasSession || running} onClick={() => void commands.compact()} title={`${force ? 'Run a pass for this variant even if its trigger says no' : 'Run a pass for this variant if its trigger fires'} (${MOD}Enter)`}>
          {running && activeRun?.kind !== 'replay' ? 'Compacting…' : force ? 'Compact (forced)' : 'Compact'}
        </button>
        <button type="button" className="btn" data-testid="replay-button" disabled={!hasSession || running} onClick={() => void commands.replay()} title="Replay the session model call by call under this variant: the trigger is checked before every call and the pass fires where it would have, live">
          {running && activeRun?.kind === 'replay' ? 'Replaying…' : 'Replay'}
        </button>
        <span className="divider" aria-hidden="true" />
        <select aria-label="Export format" data-testid="export-format" value={exportFormat} onChange={(e) => actions.setExportFormat(e.currentTarget.value as ExportFormat)}>
          {ExportFormatSchema.options.map((f) => (
            <option key={f} value={f}>
              {FORMAT_LABEL[f]}
            </option>
          ))}
        </select>
        <button type="button" className="btn" data-testid="export-button" disabled={!hasSession || exporting} onClick={() => void commands.exportCurrent()} title={`Export what the model would see for this variant (${MOD}E)`}>
          {exporting ? 'Exporting…' : 'Export'}
        </button>
        <button type="button" className="btn btn-ghost btn-icon" data-testid="settings-button" onClick={() => actions.setSettingsOpen(true)} title="Settings" aria-label="Settings">
          ⚙
        </button>
      </div>
    </header>
  );
});

export function openImportDialog(): void {
  document.getElementById('import-input')?.click();
}
