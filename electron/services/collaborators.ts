/**
 * The seams between the service layer and the modules other parts of the app own
 * (importers, demo session, compaction engine, replay, export, summarizers). The
 * service calls only these functions, so wiring a module in is a change to this file.
 */
import type { DB } from '../store/db.js';
import { StudioError, type ExportFormat, type ImportReport, type Replay, type SummarizerConfig } from '../../shared/contract.js';
import type { TokenizerName } from '../tokenizer.js';

export interface ImportOptions {
  format?: string;
  tokenizer: TokenizerName;
}

function notYet(what: string): never {
  throw new StudioError('internal', `${what} is not available in this build yet`);
}

export async function importTextIntoStore(_db: DB, _fileName: string, _text: string, _opts: ImportOptions): Promise<ImportReport> {
  return notYet('importing');
}

export async function importPathsIntoStore(_db: DB, _paths: string[], _opts: ImportOptions): Promise<ImportReport> {
  return notYet('importing');
}

/** Imports the bundled demo session on the first start; returns whether it imported. */
export async function ensureDemo(_db: DB, _resourcesDir: string): Promise<boolean> {
  return false;
}

export function replayFor(_db: DB, _variantId: number): Replay {
  return notYet('replay');
}

export function exportFor(_db: DB, _variantId: number, _format: ExportFormat): { fileName: string; mimeType: string; content: string } {
  return notYet('export');
}

/** Prompt version of the summarizer a variant is keyed by. */
export function promptVersionFor(_summarizer: SummarizerConfig): string {
  return '1.0.0';
}
