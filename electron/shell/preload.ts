/**
 * The preload (sandboxed, context-isolated): exposes `window.studio`, exactly the
 * shared contract — one function per operation, each invoking only its own channel
 * `studio:<op>` — plus an event subscription and the dropped-file path helper. Never a
 * raw ipcRenderer. Bundled to dist/electron/preload.cjs; a sandboxed preload may only
 * require 'electron', so the operation names come from main (preload-args.ts), which
 * takes them from the contract's OPERATIONS.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { PreloadBridge, StudioEvent } from '../../shared/contract.js';
import { operationsFromArgv } from './preload-args.js';

// Same strings as ipc.ts (which imports node:path, unavailable here).
const EVENT_CHANNEL = 'studio:event';

const operations: Record<string, (input: unknown) => Promise<unknown>> = {};
for (const op of operationsFromArgv(process.argv)) {
  const channel = `studio:${op}`;
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
    return webUtils.getPathForFile(file as File);
  },
} as PreloadBridge;

contextBridge.exposeInMainWorld('studio', bridge);
