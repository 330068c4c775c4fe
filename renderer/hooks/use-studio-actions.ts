/**
 * The window's commands (import, compact, cancel, export) used by the header buttons,
 * drag-and-drop and the keyboard shortcuts alike, and the subscription that turns pushed
 * StudioEvents into run progress and fresh queries.
 */
import { useCallback, useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { StudioEvent } from '../../shared/contract.js';
import { invalidateVariantData, keys, useTransport } from '../api/queries.js';
import { formatInt } from '../format.js';
import type { Workbench } from '../plan/use-workbench.js';
import { actions, studioStore } from '../state/store.js';
import type { PickedFile } from './picked-files.js';

/**
 * Events of runs the window has not learned the id of yet: a fast pass can finish before
 * startCompaction's answer arrives. Kept briefly, replayed when the id is known.
 */
const earlyRunEvents = new Map<number, StudioEvent[]>();

function rememberEarly(event: StudioEvent & { runId: number }) {
  const list = earlyRunEvents.get(event.runId) ?? [];
  list.push(event);
  earlyRunEvents.set(event.runId, list.slice(-4));
  if (earlyRunEvents.size > 32) earlyRunEvents.delete(earlyRunEvents.keys().next().value!);
}

function statsLine(stats: Record<string, unknown>): string {
  const parts: string[] = [];
  const num = (k: string) => (typeof stats[k] === 'number' ? (stats[k] as number) : null);
  const leaf = num('leafSummariesCreated');
  const condensed = num('condensedSummariesCreated');
  if (leaf !== null) parts.push(`${formatInt(leaf)} leaf`);
  if (condensed !== null) parts.push(`${formatInt(condensed)} condensed`);
  const calls = num('summarizerCalls');
  if (calls !== null) parts.push(`${formatInt(calls)} summarizer calls`);
  const hits = num('cacheHits');
  if (hits !== null) parts.push(`${formatInt(hits)} cache hits`);
  const before = num('tokensBefore');
  const after = num('tokensAfter');
  if (before !== null && after !== null) parts.push(`${formatInt(before)} → ${formatInt(after)} tokens`);
  return parts.join(' · ');
}

/**
 * A pass run although the trigger said no (the Force toggle on): the
 * engine's reason starts with "forced:" and carries the trigger's figures. Said in the
 * notice so a user does not take the summaries for the strategy's own decision.
 */
function forcedLine(stats: Record<string, unknown>): string {
  const reason = typeof stats.reason === 'string' ? stats.reason : '';
  if (!reason.startsWith('forced:')) return '';
  const why = reason.slice('forced:'.length).trim().replace(/: no compaction needed$/, '');
  return `Compacted now: the trigger would not have fired (${why})`;
}

/** Subscribes once (App level) to events from the main process. */
export function useStudioEvents(onMenuCommand: (command: 'export' | 'compact') => void): void {
  const transport = useTransport();
  const client = useQueryClient();
  const menuRef = useRef(onMenuCommand);
  menuRef.current = onMenuCommand;
  useEffect(() => {
    const apply = (event: StudioEvent) => {
      switch (event.type) {
        case 'run-progress': {
          const run = studioStore.getState().activeRun;
          if (!run || run.runId !== event.runId) return rememberEarly(event);
          actions.updateActiveRun(event.runId, { done: event.done, total: event.total, tokens: event.tokens, message: event.message });
          return;
        }
        case 'run-finished': {
          const run = studioStore.getState().activeRun;
          if (!run || run.runId !== event.runId) {
            rememberEarly(event);
            void client.invalidateQueries({ queryKey: keys.runs(event.variantId) });
            void client.invalidateQueries({ queryKey: ['sessionReplays'] });
            void client.invalidateQueries({ queryKey: ['compare'] });
            return;
          }
          actions.updateActiveRun(event.runId, { status: event.status, stats: event.stats, error: event.error, endedAt: Date.now(), done: run.total > 0 && event.status === 'completed' ? run.total : run.done });
          invalidateVariantData(client, run.sessionId, event.variantId);
          void client.invalidateQueries({ queryKey: keys.replayRun(event.runId) });
          const what = run.kind === 'replay' ? 'Replay' : 'Run';
          if (event.status === 'completed') actions.notify({ kind: 'success', title: `${what} #${event.runId} completed`, message: run.kind === 'replay' ? undefined : [forcedLine(event.stats), statsLine(event.stats)].filter(Boolean).join(' — ') || undefined });
          else if (event.status === 'skipped') actions.notify({ kind: 'info', title: `Run #${event.runId} skipped`, message: typeof event.stats.reason === 'string' ? event.stats.reason : (event.error ?? undefined) });
          else if (event.status === 'cancelled') actions.notify({ kind: 'info', title: `Run #${event.runId} cancelled` });
          else if (event.status === 'failed') actions.notify({ kind: 'error', title: `Run #${event.runId} failed`, message: event.error ?? undefined });
          return;
        }
        case 'job-progress': {
          const job = studioStore.getState().importJob;
          if (event.kind === 'import' && job?.jobId === event.jobId) studioStore.set({ importJob: { ...job, message: event.message } });
          return;
        }
        case 'job-finished':
          // An import's outcome arrives with its request's answer; a delete runs unseen (its session left the list at once) unless it fails.
          if (event.kind === 'delete' && event.status === 'failed') actions.notify({ kind: 'error', title: 'Deleting a session failed', message: event.error ?? undefined });
          return;
        case 'sessions-changed':
          void client.invalidateQueries({ queryKey: keys.sessions });
          void client.invalidateQueries({ queryKey: ['session'] });
          return;
        case 'notice':
          actions.notify({ kind: event.kind, title: event.title, message: event.message });
          return;
        case 'menu-command':
          // File > Export… / Compact in Electron's native menu: only the window knows the variant.
          menuRef.current(event.command);
          return;
        default: {
          const _exhaustive: never = event;
          return _exhaustive;
        }
      }
    };
    // Replays events that arrived before startCompaction answered.
    const onRunKnown = () => {
      const run = studioStore.getState().activeRun;
      if (!run) return;
      const early = earlyRunEvents.get(run.runId);
      if (!early) return;
      earlyRunEvents.delete(run.runId);
      for (const e of early) apply(e);
    };
    const unsubscribeStore = studioStore.subscribe(onRunKnown);
    const unsubscribe = transport.subscribe(apply);
    return () => {
      unsubscribe();
      unsubscribeStore();
    };
  }, [transport, client]);
}

/** Saves a file from the browser (an anchor with a blob URL). */
export function download(fileName: string, mimeType: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mimeType || 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoke later: the download starts asynchronously.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

export interface StudioCommands {
  /** One request for everything picked (a file, several, a folder); opens the first new session. */
  importFiles(files: readonly PickedFile[]): Promise<void>;
  compact(): Promise<void>;
  /** Replays the session call by call under the current strategy and parameters (run kind 'replay'). */
  replay(): Promise<void>;
  cancel(): Promise<void>;
  /** Stops the import in flight: nothing of it is written. */
  cancelImport(): Promise<void>;
  exportCurrent(): Promise<void>;
  /** Saves the parameters on screen as a named variant (the only way to make one without running). */
  saveCurrent(name?: string): Promise<void>;
}

export function useStudioCommands(wb: Workbench): StudioCommands {
  const transport = useTransport();
  const client = useQueryClient();
  const api = transport.api;
  const sessionId = wb.session?.id ?? null;
  const { strategy, params, variant } = wb;

  const importFiles = useCallback(
    async (picked: readonly PickedFile[]) => {
      if (picked.length === 0) return;
      const bytes = picked.reduce((sum, p) => sum + p.file.size, 0);
      const folder = picked[0].path.includes('/') ? picked[0].path.slice(0, picked[0].path.indexOf('/')) : null;
      const label = picked.length === 1 ? picked[0].path : folder && picked.every((p) => p.path.startsWith(`${folder}/`)) ? `${folder}/ (${picked.length} files)` : `${picked.length} files`;
      // randomUUID exists in secure contexts only (127.0.0.1 and app:// are); any unique string will do.
      const jobId = typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `import-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      studioStore.set((s) => ({ importing: s.importing + picked.length, importJob: { jobId, label, bytes, files: picked.length, message: null } }));
      try {
        // One request whatever the count: several files (a folder) go together so the main
        // process can link subagents to their parents by their relative paths.
        const paths = transport.pathForFile ? picked.map((p) => transport.pathForFile!(p.file)) : [];
        const report =
          paths.length === picked.length && paths.every(Boolean)
            ? await api.importPaths({ paths, jobId })
            : picked.length === 1
              ? await api.importText({ fileName: picked[0].file.name, text: await picked[0].file.text(), jobId })
              : await api.importTexts({ files: await Promise.all(picked.map(async (p) => ({ fileName: p.path, text: await p.file.text() }))), jobId });
        // The list must hold the new sessions before one is selected: App re-selects the
        // first session when the selected id is not in the list.
        await client.invalidateQueries({ queryKey: keys.sessions });
        const fresh = report.sessions.filter((s) => !s.duplicate);
        const open = fresh.find((s) => s.parentSessionId === null) ?? fresh[0] ?? report.sessions.find((s) => s.parentSessionId === null) ?? report.sessions[0];
        if (!open) {
          actions.notify({ kind: 'info', title: `Nothing imported from ${label}` });
          return;
        }
        actions.selectSession(open.id);
        const duplicates = report.sessions.length - fresh.length;
        const tops = fresh.filter((s) => s.parentSessionId === null).length;
        const subagents = fresh.length - tops;
        actions.notify({
          kind: fresh.length === 0 ? 'info' : 'success',
          title: fresh.length === 0 ? `Already imported: ${open.title}` : fresh.length === 1 ? `Imported ${open.title}` : `Imported ${fresh.length} sessions from ${label}`,
          message: [
            fresh.length <= 1 ? `${open.format} · ${formatInt(open.turns)} turns · ${formatInt(open.tokens)} tokens` : `${tops} session${tops === 1 ? '' : 's'}${subagents > 0 ? ` + ${subagents} subagent${subagents === 1 ? '' : 's'}` : ''}; opened ${open.title}`,
            duplicates > 0 && fresh.length > 0 ? `${duplicates} already imported` : '',
          ]
            .filter(Boolean)
            .join(' · '),
        });
      } catch (err) {
        if ((err as { code?: string }).code === 'cancelled') actions.notify({ kind: 'info', title: `Import of ${label} cancelled`, message: 'Nothing was imported' });
        else actions.notify({ kind: 'error', title: `Could not import ${label}`, message: (err as Error).message });
      } finally {
        studioStore.set((s) => ({ importing: s.importing - picked.length, importJob: null }));
      }
    },
    [api, client, transport],
  );

  const compact = useCallback(async () => {
    if (sessionId === null) return void actions.notify({ kind: 'info', title: 'Select a session to compact' });
    const running = studioStore.getState().activeRun;
    const force = studioStore.getState().force;
    // two-line's one task per conversation (session, variant): asking again while the variant's
    // pass runs marks it to run once more; another two-line variant of the session starts its own run.
    const twoLineBeside = strategy === 'two-line' && running?.strategy === 'two-line' && running.sessionId === sessionId;
    if (running && running.status === 'running' && !twoLineBeside) return void actions.notify({ kind: 'info', title: `Run #${running.runId} is still running` });
    try {
      const { runId, variantId, rerunQueued } = await api.startCompaction({ sessionId, strategy, params, force });
      if (rerunQueued) return void actions.notify({ kind: 'info', title: `Two-line will run once more after run #${runId}` });
      actions.setActiveRun({ runId, variantId, sessionId, strategy, done: 0, total: 0, tokens: 0, status: 'running', stats: {}, error: null, startedAt: Date.now(), endedAt: null });
      // The run made the variant if it was a draft: the lookup and the table see it now.
      invalidateVariantData(client, sessionId, variantId);
    } catch (err) {
      actions.notify({ kind: 'error', title: 'Could not start compaction', message: (err as Error).message });
    }
  }, [api, client, sessionId, strategy, params]);

  const { paramsKey } = wb;
  const replay = useCallback(async () => {
    if (sessionId === null) return void actions.notify({ kind: 'info', title: 'Select a session to replay' });
    const running = studioStore.getState().activeRun;
    if (running && running.status === 'running') return void actions.notify({ kind: 'info', title: `Run #${running.runId} is still running` });
    try {
      const { runId, variantId } = await api.startReplay({ sessionId, strategy, params });
      actions.setLastReplay({ runId, variantId, sessionId, strategy, paramsKey });
      actions.setActiveRun({ runId, variantId, sessionId, strategy, kind: 'replay', done: 0, total: 0, tokens: 0, status: 'running', stats: {}, error: null, startedAt: Date.now(), endedAt: null });
      invalidateVariantData(client, sessionId, variantId);
      if (studioStore.getState().tab !== 'timeline') actions.setTab('timeline');
    } catch (err) {
      actions.notify({ kind: 'error', title: 'Could not start the replay', message: (err as Error).message });
    }
  }, [api, client, sessionId, strategy, params, paramsKey]);

  const cancel = useCallback(async () => {
    const run = studioStore.getState().activeRun;
    if (!run || run.status !== 'running' || run.cancelling) return;
    actions.updateActiveRun(run.runId, { cancelling: true });
    try {
      const { cancelled } = await api.cancelCompaction({ runId: run.runId });
      if (!cancelled) actions.updateActiveRun(run.runId, { cancelling: false });
    } catch (err) {
      actions.updateActiveRun(run.runId, { cancelling: false });
      actions.notify({ kind: 'error', title: 'Could not cancel', message: (err as Error).message });
    }
  }, [api]);

  const cancelImport = useCallback(async () => {
    const job = studioStore.getState().importJob;
    if (!job || job.cancelling) return;
    studioStore.set({ importJob: { ...job, cancelling: true } });
    try {
      await api.cancelJob({ jobId: job.jobId });
    } catch (err) {
      actions.notify({ kind: 'error', title: 'Could not cancel the import', message: (err as Error).message });
    }
  }, [api]);

  const exportCurrent = useCallback(async () => {
    if (sessionId === null) return void actions.notify({ kind: 'info', title: 'Select a session to export' });
    const format = studioStore.getState().exportFormat;
    studioStore.set({ exporting: true });
    try {
      // A draft has no variant: exporting it is an explicit action, so it saves one (named;
      // it shows in the variant table) for exactly the parameters on screen.
      const variantId = variant?.id ?? (await api.saveVariant({ sessionId, strategy, params })).id;
      if (!variant) invalidateVariantData(client, sessionId, variantId);
      const file = await api.exportVariant({ variantId, format });
      if (transport.kind === 'electron') {
        const { savedTo } = await api.saveExport({ fileName: file.fileName, content: file.content });
        if (savedTo) actions.notify({ kind: 'success', title: 'Exported', message: savedTo });
      } else {
        download(file.fileName, file.mimeType, file.content);
        actions.notify({ kind: 'success', title: `Exported ${file.fileName}`, message: `${format} · ${formatInt(file.content.length)} characters` });
      }
    } catch (err) {
      actions.notify({ kind: 'error', title: 'Export failed', message: (err as Error).message });
    } finally {
      studioStore.set({ exporting: false });
    }
  }, [api, client, transport, sessionId, strategy, params, variant]);

  const saveCurrent = useCallback(
    async (name?: string) => {
      if (sessionId === null) return void actions.notify({ kind: 'info', title: 'Select a session first' });
      try {
        const saved = await api.saveVariant({ sessionId, strategy, params, ...(name ? { name } : {}) });
        invalidateVariantData(client, sessionId, saved.id);
        actions.notify({ kind: 'success', title: `Saved variant ${saved.name ?? `#${saved.id}`}` });
      } catch (err) {
        actions.notify({ kind: 'error', title: 'Could not save the variant', message: (err as Error).message });
      }
    },
    [api, client, sessionId, strategy, params],
  );

  return { importFiles, compact, replay, cancel, cancelImport, exportCurrent, saveCurrent };
}
