/**
 * `importPaths` in Electron reads files named by the window, so main accepts only paths
 * the USER chose: picked in main's own open dialog, or a file dropped on (or picked in)
 * the window. The page cannot name a file: the preload's `pathForFile` turns an OS-backed
 * File (webUtils.getPathForFile, '' for a File the page built itself) into its path and
 * grants it to main over PATH_GRANT_CHANNEL, and main checks every `importPaths` path
 * against those grants before the service sees the request. A script in the page, even
 * one that calls window.studio.importPaths directly, gets `forbidden` for any other path.
 * (Browser mode refuses importPaths outright: electron/server/http-server.ts.)
 */
import path from 'node:path';
import type { IpcMain, IpcMainEvent } from 'electron';
import { PATH_GRANT_CHANNEL, type Envelope } from '../../shared/contract.js';
import { checkSender, senderInfo } from './ipc.js';

/** Grants are few (what a user picks or drops); the cap only stops a runaway renderer. */
const MAX_GRANTS = 100_000;

/** The paths the user chose in this run of the app (absolute, normalized). */
export class PathGrants {
  private readonly granted = new Set<string>();

  grant(paths: readonly string[]): void {
    for (const p of paths) {
      if (this.granted.size >= MAX_GRANTS) return;
      this.granted.add(path.resolve(p));
    }
  }

  isGranted(p: string): boolean {
    return this.granted.has(path.resolve(p));
  }

  /** The first path of `paths` not granted, or null when all are. */
  firstUngranted(paths: readonly string[]): string | null {
    return paths.find((p) => !this.isGranted(p)) ?? null;
  }
}

/**
 * Wraps the service's dispatch: `importPaths` with a path the user did not choose is
 * refused with `forbidden` (naming at most 200 characters of the path) before any file is
 * opened; every other operation, and malformed input (the service's zod answers it), passes.
 */
export function guardImportPaths(grants: PathGrants, dispatch: (op: string, raw: unknown) => Promise<Envelope<unknown>>): (op: string, raw: unknown) => Promise<Envelope<unknown>> {
  return async (op, raw) => {
    if (op === 'importPaths' && typeof raw === 'object' && raw !== null) {
      const paths = (raw as { paths?: unknown }).paths;
      if (Array.isArray(paths) && paths.every((p): p is string => typeof p === 'string')) {
        const refused = grants.firstUngranted(paths);
        if (refused !== null) {
          const shown = refused.length > 200 ? `${refused.slice(0, 200)}…` : refused;
          return { ok: false, error: { code: 'forbidden', message: `importPaths: ${JSON.stringify(shown)} was not picked in an Open dialog or dropped on the window` } };
        }
      }
    }
    return dispatch(op, raw);
  };
}

/**
 * Main's end of PATH_GRANT_CHANNEL (sendSync from the preload, so the grant is in place
 * before the importPaths that follows). Only our window's main frame may grant, and only
 * absolute paths; `returnValue` tells the preload whether the grant was taken.
 */
export function registerPathGrantChannel(ipcMain: Pick<IpcMain, 'on' | 'removeAllListeners'>, grants: PathGrants, trustedWebContentsIds: ReadonlySet<number>, log: (message: string) => void = (m) => console.warn(m)): () => void {
  ipcMain.on(PATH_GRANT_CHANNEL, (event: IpcMainEvent, p: unknown) => {
    const verdict = checkSender(senderInfo(event), trustedWebContentsIds);
    if (!verdict.ok) {
      log(`refused a path grant: ${verdict.reason}`);
      event.returnValue = false;
      return;
    }
    const ok = typeof p === 'string' && p.length > 0 && !p.includes('\0') && path.isAbsolute(p);
    if (ok) grants.grant([p]);
    event.returnValue = ok;
  });
  return () => {
    ipcMain.removeAllListeners(PATH_GRANT_CHANNEL);
  };
}
