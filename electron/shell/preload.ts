/**
 * The preload (sandboxed, context-isolated): exposes `window.studio`, exactly the
 * shared contract — one function per operation, each invoking only its own channel
 * (`operationChannel(op)`, `studio:<op>`) — plus an event subscription and the dropped-file
 * path helper (which grants main that path for importPaths, path-grants.ts). Never a
 * raw ipcRenderer. Bundled to dist/electron/preload.cjs; a sandboxed preload may only
 * require 'electron', so the operation names come from main (preload-args.ts), which
 * takes them from the contract's OPERATIONS.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { PreloadBridge, StudioEvent } from '../../shared/contract.js';
// The contract's channel names from their zod-free file (the preload bundles what it imports).
import { EVENT_CHANNEL, PATH_GRANT_CHANNEL, operationChannel } from '../../shared/contract-names.js';
import { operationsFromArgv } from './preload-args.js';

const operations: Record<string, (input: unknown) => Promise<unknown>> = {};
for (const op of operationsFromArgv(process.argv)) {
  const channel = operationChannel(op);
  operations[op] = (input: unknown) => ipcRenderer.invoke(channel, input);
}

const bridge = {
  ...operations,
  onEvent(listener: (event: StudioEvent) => void): () => void {
    // Wrapped so the window never sees the IpcRendererEvent (it carries `sender`).
    const handler = (_event: IpcRendererEvent, studioEvent: StudioEvent) => listener(studioEvent);
    ipcRenderer.on(EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler);
    };
  },
  pathForFile(file: unknown): string {
    // '' for a File the page made itself: only a file the user dropped or picked has a
    // path. Granting it lets main accept it in importPaths (path-grants.ts); sync, so the
    // grant is in place before the importPaths call that follows.
    const filePath = webUtils.getPathForFile(file as File);
    if (!filePath) return '';
    return ipcRenderer.sendSync(PATH_GRANT_CHANNEL, filePath) === true ? filePath : '';
  },
} as PreloadBridge;

contextBridge.exposeInMainWorld('studio', bridge);
