/**
 * Where browser mode streams large request bodies (http-server.ts `receiveBody`): a folder of
 * its own under the OS temp dir, mode 0700, named `compaction-studio-uploads-*`, holding an
 * `owner.json` (this process: pid, host, start identity, as a run's owner in
 * electron/store/run-owner.ts). The server removes its folder on close; a server that was
 * killed cannot, so every start first removes the folders whose owner is gone (a transcript
 * uploaded to a server killed mid-upload stays in the temp folder no longer than that).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { currentOwner, ownerAlive } from '../store/run-owner.js';

export const SPOOL_PREFIX = 'compaction-studio-uploads-';
const OWNER_FILE = 'owner.json';
/** A folder without its owner file is another server starting right now, unless it is older than this. */
const UNOWNED_GRACE_MS = 60_000;

/** Removes the spool folders under `tmp` left by servers that are gone; returns the folders removed. */
export function removeAbandonedSpools(tmp: string = os.tmpdir(), nowMs: number = Date.now()): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(tmp).filter((n) => n.startsWith(SPOOL_PREFIX));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(tmp, name);
    try {
      const stat = fs.lstatSync(dir);
      // Only our own folders: a symlink or another user's folder is left alone.
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) continue;
      const owner = readOwner(dir);
      if (owner === null) {
        if (nowMs - stat.mtimeMs < UNOWNED_GRACE_MS) continue;
      } else {
        const row = { owner_pid: typeof owner.pid === 'number' ? owner.pid : null, owner_host: typeof owner.host === 'string' ? owner.host : null, owner_start: typeof owner.start === 'string' ? owner.start : null, heartbeat_at: null };
        if (ownerAlive(row, nowMs)) continue;
      }
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Removed meanwhile, or not ours to remove.
    }
  }
  return removed;
}

function readOwner(dir: string): { pid?: unknown; host?: unknown; start?: unknown } | null {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    return value !== null && typeof value === 'object' ? (value as { pid?: unknown; host?: unknown; start?: unknown }) : null;
  } catch {
    return null;
  }
}

/** A fresh spool folder for this process, its owner recorded. */
export function createSpoolFolder(tmp: string = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(tmp, SPOOL_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(currentOwner()), { mode: 0o600 });
  return dir;
}
