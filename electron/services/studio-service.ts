/**
 * The StudioApi implementation both transports share (Electron IPC and the
 * browser-mode HTTP server): it owns the store connection, answers every operation of
 * the shared contract, runs passes in a worker, and emits StudioEvents.
 */
import { holdSecret, redactHeldSecretsIn } from '../held-secrets.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepareStrategy } from '../../shared/strategies/index.js';
import { ReplayRunner, replayContextAt, replayTimeline } from './replays.js';
import { cutTurnOf, findVariantFor, resolveVariantFor } from '../engine/engine.js';
import { stableJson } from '../../shared/model/turn.js';
import { compareVariants } from './compare.js';
import { StudioError, type Envelope, type ImportReport, type StudioApi, type StudioEvent } from '../../shared/contract.js';
import { openDatabase, type DB } from '../store/db.js';
import { markSessionForDeletion } from '../store/session-deletion.js';
import { listTurns, searchSummaries, searchTurns } from '../store/turns.js';
import { reapDeadRuns } from '../store/run-owner.js';
import { getSweepDetail, listSweeps } from '../store/sweeps.js';
import { deleteVariant, getVariant, listRuns, listSummaries, listVariants, renameVariant, variantHasRunningRun } from '../store/variants.js';
import { ensureDemoSession } from '../demo.js';
import { exportFor, replayDraftFor, replayFor } from './collaborators.js';
import { CompactionRunner, type WorkerScript } from './compaction-runner.js';
import { dispatchOperation, errorEnvelope } from './dispatch.js';
import type { ImportSource } from './pass-protocol.js';
import { TaskRunner } from './task-runner.js';
import { apiKeyFor, holdEnvironmentSecrets, type SecretStore } from './secrets.js';
import { requireSession, sessionDetail, sessionInfos, sessionUsage, turnMetaColumns } from './session-views.js';
import { readSettings, writeSettings } from './settings-store.js';

export interface StudioServiceOptions {
  /** SQLite file (a real file: the pass worker opens its own connection to it). */
  dbPath: string;
  /** The Electron build of better-sqlite3 (electron/shell/native-binding.ts); Node's otherwise. */
  nativeBinding?: string;
  /** Folder holding the bundled demo transcript. */
  resourcesDir: string;
  secrets: SecretStore;
  /** Import the demo session when the store has never had one (default true). */
  importDemo?: boolean;
  /** How to start the pass worker; defaults to the sibling pass-worker (.cjs bundle or .ts via tsx). */
  workerScript?: WorkerScript;
  /**
   * Electron: asks the user where to save an export and writes it; returns the path or
   * null when cancelled. Browser mode has none: the window downloads the content itself.
   */
  saveFile?: (fileName: string, content: string) => Promise<string | null>;
}

export interface StudioService {
  api: StudioApi;
  /** Validates and runs one operation; never throws. Both transports call this. */
  dispatch(op: string, rawInput: unknown): Promise<Envelope<unknown>>;
  onEvent(listener: (event: StudioEvent) => void): () => void;
  /**
   * Browser mode: imports a request body the server streamed to `file` (the JSON input of
   * importText or importTexts), read, validated and imported in the worker. Never throws.
   */
  importUpload(op: 'importText' | 'importTexts', file: string): Promise<Envelope<ImportReport>>;
  /** Cancels running passes and jobs, waits for their workers, closes the store. */
  close(): Promise<void>;
  readonly db: DB;
  readonly runner: CompactionRunner;
  readonly tasks: TaskRunner;
}

/**
 * The worker next to this module: in a bundle (dist/electron/*.cjs) that is
 * pass-worker.cjs; from sources (Vitest, tsx, Playwright) the .ts file, loaded through
 * tsx's tsImport. (Node 20 workers ignore `--import tsx` in execArgv, and tsx's ESM
 * hooks registered inside a worker come too late for its first import; tsImport works.)
 */
export function defaultWorkerScript(moduleUrl: string = import.meta.url): WorkerScript {
  if (moduleUrl.endsWith('.cjs')) return { file: new URL('./pass-worker.cjs', moduleUrl) };
  const workerUrl = new URL('./pass-worker.ts', moduleUrl).href;
  // The ESM entry of tsx/esm/api (require.resolve would give its CJS twin, which cannot tsImport).
  const tsxPackage = createRequire(moduleUrl).resolve('tsx/package.json');
  const tsxApi = pathToFileURL(path.join(path.dirname(tsxPackage), 'dist', 'esm', 'api', 'index.mjs')).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(workerUrl)}, ${JSON.stringify(moduleUrl)}))`;
  return { file: bootstrap, eval: true };
}

/** How often the app looks for runs whose process is gone (electron/store/run-owner.ts). */
const REAP_INTERVAL_MS = 10_000;

export async function createStudioService(opts: StudioServiceOptions): Promise<StudioService> {
  // The environment's keys and the stored one are held by value: no text the app writes keeps them.
  holdEnvironmentSecrets(process.env);
  holdSecret(opts.secrets.getApiKey());
  if (opts.dbPath === ':memory:') throw new Error('the studio service needs a database file: the pass worker opens its own connection');
  // Forward declaration: the database may have to wait for a writer while it opens.
  let emit: (event: StudioEvent) => void = () => undefined;
  // openDatabase closes the runs of processes that are gone (electron/store/run-owner.ts); a
  // live CLI's run is left alone.
  // What a killed process left (an import, a delete) is handed over at open and finished below, in the worker.
  let pending: number[] = [];
  const db = openDatabase(opts.dbPath, {
    nativeBinding: opts.nativeBinding,
    onWriteWait: (message) => emit({ type: 'notice', kind: 'info', title: 'Waiting for another process', message }),
    resume: (ids) => (pending = ids),
  });
  // A store opened read-only (a read-only file, a newer version's) is only read: no demo, no cleanup.
  if (!db.readonly && (opts.importDemo ?? true)) ensureDemoSession(db, opts.resourcesDir);

  const listeners = new Set<(event: StudioEvent) => void>();
  emit = (raw: StudioEvent) => {
    // A run's error or a job's message may quote an endpoint that echoed the key.
    const event = redactHeldSecretsIn(raw);
    for (const l of listeners) {
      try {
        l(event);
      } catch {
        // One broken subscriber (a closed window, a dropped SSE stream) must not stop the others.
      }
    }
  };
  // A CLI killed mid-run leaves its run 'running': notice it while the app is open.
  const reaper = setInterval(() => {
    try {
      for (const r of reapDeadRuns(db)) emit({ type: 'run-finished', runId: r.runId, variantId: r.variantId, status: 'failed', stats: {}, error: r.error });
    } catch {
      // The database busy for longer than its timeout: the next round retries.
    }
  }, REAP_INTERVAL_MS);
  reaper.unref();
  const workerScript = opts.workerScript ?? defaultWorkerScript();
  const runner = new CompactionRunner({ db, dbPath: opts.dbPath, nativeBinding: opts.nativeBinding, workerScript, emit });
  const tasks = new TaskRunner({ dbPath: opts.dbPath, nativeBinding: opts.nativeBinding, workerScript, emit });
  /** Deletes marked sessions in the worker, batch by batch (the list already lost them). */
  const deleteInBackground = (ids: number[]) => {
    tasks.runDelete(ids).then(
      () => emit({ type: 'sessions-changed' }),
      (err: unknown) => {
        // Cancelled at shutdown: still marked, the next start finishes it.
        if ((err as { code?: string }).code !== 'cancelled') console.error(`delete of sessions ${ids.join(', ')} failed: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  };
  // A delete or an import the app (or a killed CLI) left half done is finished now, in the background.
  if (pending.length > 0) deleteInBackground(pending);
  /** Every import runs in the worker: one transaction there, the main thread free meanwhile. */
  const importInWorker = async (source: ImportSource, format: string | undefined, jobId: string | undefined): Promise<ImportReport> => {
    const report = await tasks.run<ImportReport>({ kind: 'import', source, format, tokenizer: settings().tokenizer }, jobId);
    emit({ type: 'sessions-changed' });
    return report;
  };
  const settings = () => readSettings(db, opts.secrets);
  const replays = new ReplayRunner(db, emit);

  const requireVariant = (variantId: number) => {
    const v = getVariant(db, variantId);
    if (!v) throw new StudioError('not_found', `variant ${variantId} does not exist`);
    return v;
  };

  const api: StudioApi = {
    listSessions: async () => sessionInfos(db),
    getSession: async ({ sessionId }) => sessionDetail(db, sessionId),
    // One transaction each; ImportError (file, line, what was expected) leaves the store as it
    // was; subagent files link to their session file as the CLI links them.
    importText: ({ fileName, text, format, jobId }) => importInWorker({ from: 'text', fileName, text }, format, jobId),
    importTexts: ({ files, format, jobId }) => importInWorker({ from: 'texts', files }, format, jobId),
    importPaths: ({ paths, format, jobId }) => importInWorker({ from: 'paths', paths }, format, jobId),
    cancelJob: async ({ jobId }) => ({ cancelled: tasks.cancel(jobId) }),
    deleteSession: async ({ sessionId }) => {
      if (runner.activeSessions().has(sessionId)) {
        throw new StudioError('busy', `session ${sessionId} has a compaction running; cancel it before deleting the session`);
      }
      // One quick transaction: the session (and its children) leave every listing now; the
      // rows go in batches in the worker.
      const ids = markSessionForDeletion(db, sessionId);
      if (!ids) return { deleted: false };
      emit({ type: 'sessions-changed' });
      deleteInBackground(ids);
      return { deleted: true };
    },
    listTurns: async ({ sessionId, from, to }) => {
      requireSession(db, sessionId);
      if (to < from) throw new StudioError('invalid_input', `invalid input for listTurns: to (${to}) is before from (${from})`);
      return listTurns(db, sessionId, { from, to });
    },
    turnMetas: async ({ sessionId }) => turnMetaColumns(db, sessionId),
    sessionUsage: async ({ sessionId }) => sessionUsage(db, sessionId),
    search: async ({ query }) => ({ turns: searchTurns(db, query), summaries: searchSummaries(db, query) }),
    listSweeps: async ({ sessionId }) => {
      if (sessionId !== undefined) requireSession(db, sessionId);
      return listSweeps(db, sessionId);
    },
    getSweep: async ({ sweepId }) => {
      const detail = getSweepDetail(db, sweepId);
      if (!detail) throw new StudioError('not_found', `sweep ${sweepId} does not exist`);
      return detail;
    },
    listVariants: async ({ sessionId }) => {
      requireSession(db, sessionId);
      return listVariants(db, sessionId);
    },
    findVariant: async ({ sessionId, strategy, params, variantId }) => {
      requireSession(db, sessionId);
      const wanted = prepareStrategy(strategy, params).params;
      // The variant loaded from the table stays the one shown while its parameters are on
      // screen, whatever summarizer made it.
      if (variantId !== undefined) {
        const loaded = getVariant(db, variantId);
        if (loaded && loaded.sessionId === sessionId && loaded.strategy === strategy && stableJson(loaded.params) === stableJson(wanted)) return loaded;
      }
      // The engine's keying (resolved params, summarizer identity, prompt version): the
      // variant startCompaction would write into, if it exists. Never creates one.
      return findVariantFor(db, { sessionId, strategy, params, summarizer: settings().summarizer });
    },
    saveVariant: async ({ sessionId, strategy, params, name }) => {
      requireSession(db, sessionId);
      const v = resolveVariantFor(db, { sessionId, strategy, params, summarizer: settings().summarizer });
      // A saved variant is named (an unnamed one without runs would be hidden as empty).
      const given = name?.trim();
      const finalName = given ? given : (v.name ?? `${strategy} #${v.id}`);
      renameVariant(db, v.id, finalName);
      return requireVariant(v.id);
    },
    renameVariant: async ({ variantId, name }) => {
      const v = requireVariant(variantId);
      const trimmed = name.trim();
      // Its name is all a saved, never-run variant has: clearing it would hide it as empty.
      if (trimmed === '' && v.runs === 0 && v.summaries === 0) throw new StudioError('invalid_input', `variant ${variantId} has no runs: it keeps a name (delete it instead)`);
      renameVariant(db, variantId, trimmed === '' ? null : trimmed);
      return requireVariant(variantId);
    },
    deleteVariant: async ({ variantId }) => {
      const v = getVariant(db, variantId);
      if (!v) return { deleted: false };
      if (variantHasRunningRun(db, variantId) || runner.activeSessions().has(v.sessionId)) {
        throw new StudioError('busy', `variant ${variantId} has a run in progress; cancel it before deleting the variant`);
      }
      return { deleted: deleteVariant(db, variantId) };
    },
    listSummaries: async ({ variantId }) => {
      requireVariant(variantId);
      return listSummaries(db, variantId);
    },
    listRuns: async ({ variantId }) => {
      requireVariant(variantId);
      return listRuns(db, variantId);
    },
    startCompaction: async ({ sessionId, strategy, params, force, asOfCall }) => {
      requireSession(db, sessionId);
      // Checked here too so a bad parameter is an immediate invalid_input, not a worker round trip.
      prepareStrategy(strategy, params);
      if (asOfCall !== undefined) cutTurnOf(db, sessionId, asOfCall);
      const s = settings();
      return runner.start({ sessionId, strategy, params, force: force ?? false, ...(asOfCall === undefined ? {} : { asOfCall }), summarizer: s.summarizer, apiKey: apiKeyFor(opts.secrets, s.summarizer) ?? null, concurrency: s.concurrency });
    },
    cancelCompaction: async ({ runId }) => ({ cancelled: runner.cancel(runId) || replays.cancel(runId) }),
    startReplay: async ({ sessionId, strategy, params, overheadTokens, commitDelayCalls }) => {
      requireSession(db, sessionId);
      prepareStrategy(strategy, params);
      const s = settings();
      return replays.start({ sessionId, strategy, params, overheadTokens, commitDelayCalls, summarizer: { ...s.summarizer, apiKey: apiKeyFor(opts.secrets, s.summarizer) }, concurrency: s.concurrency });
    },
    getReplayRun: async ({ runId }) => replayTimeline(db, runId),
    replayContextAt: async ({ runId, call }) => replayContextAt(db, runId, call),
    compareVariants: async ({ sessionId, variantIds, call }) => compareVariants(db, { sessionId, variantIds, call }),
    replay: async ({ variantId }) => {
      requireVariant(variantId);
      return replayFor(db, variantId);
    },
    replayDraft: async ({ sessionId, strategy, params }) => replayDraftFor(db, sessionId, strategy, params),
    exportVariant: async ({ variantId, format }) => {
      requireVariant(variantId);
      return exportFor(db, variantId, format);
    },
    saveExport: async ({ fileName, content }) => ({ savedTo: opts.saveFile ? await opts.saveFile(fileName, content) : null }),
    getSettings: async () => settings(),
    setSettings: async (input) => writeSettings(db, opts.secrets, input),
  };

  return {
    api,
    db,
    runner,
    tasks,
    dispatch: (op, rawInput) => dispatchOperation(api, op, rawInput, db),
    async importUpload(op, file) {
      try {
        return { ok: true, value: await importInWorker({ from: 'upload', op, file }, undefined, undefined) };
      } catch (err) {
        return errorEnvelope(op, err, db);
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(reaper);
      await Promise.all([runner.stopAll(), tasks.stopAll()]);
      listeners.clear();
      db.close();
    },
  };
}
