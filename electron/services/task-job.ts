/**
 * One task as the worker runs it (the seam between the worker protocol and the store, as
 * pass-job.ts is for passes): an import (electron/importers/import.ts, committed in chunks
 * under a hidden mark) or
 * the batches of a delete (electron/store/session-deletion.ts).
 */
import fs from 'node:fs';
import { StudioError, type ImportReport } from '../../shared/contract.js';
import { importFiles, importText, importTexts } from '../importers/import.js';
import type { DB } from '../store/db.js';
import { finishDeletions, rowsToDelete } from '../store/session-deletion.js';
import { parseJsonBody, validateInput } from './dispatch.js';
import type { ImportSource, TaskJob } from './pass-protocol.js';

export interface TaskJobHooks {
  /** True once the job was cancelled (read between turns and between batches). */
  cancelled(): boolean;
  onProgress(p: { done: number; total: number; message: string }): void;
  /** An upload's own jobId, read from its body. */
  onJobId(jobId: string): void;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** The files of an import, the upload's body read and validated here (never on the server's thread). */
function importInput(source: ImportSource, hooks: TaskJobHooks): { run: (db: DB, opts: Parameters<typeof importFiles>[2]) => ImportReport; format?: string } {
  switch (source.from) {
    case 'text':
      return { run: (db, o) => importText(db, source.fileName, source.text, o) };
    case 'texts':
      return { run: (db, o) => importTexts(db, source.files, o) };
    case 'paths':
      return { run: (db, o) => importFiles(db, source.paths, o) };
    case 'upload': {
      const input = validateInput(source.op, parseJsonBody(fs.readFileSync(source.file, 'utf8')));
      if (input.jobId) hooks.onJobId(input.jobId);
      if ('files' in input) return { run: (db, o) => importTexts(db, input.files, o), format: input.format };
      return { run: (db, o) => importText(db, input.fileName, input.text, o), format: input.format };
    }
    default: {
      const _exhaustive: never = source;
      return _exhaustive;
    }
  }
}

export function runTaskJob(db: DB, task: TaskJob, hooks: TaskJobHooks): unknown {
  switch (task.kind) {
    case 'import': {
      const { run, format } = importInput(task.source, hooks);
      return run(db, {
        format: format ?? task.format,
        tokenizer: task.tokenizer,
        onProgress: ({ turns, files, totalFiles }) => {
          // Thrown inside the import's open chunk: it rolls back and the committed chunks are deleted, nothing is left.
          if (hooks.cancelled()) throw new StudioError('cancelled', 'import cancelled: nothing was imported');
          hooks.onProgress({ done: turns, total: 0, message: `${plural(turns, 'turn')}${totalFiles > 1 ? ` · file ${files} of ${totalFiles}` : ''}` });
        },
      });
    }
    case 'delete': {
      const total = rowsToDelete(db, task.sessionIds);
      hooks.onProgress({ done: 0, total, message: `deleting ${plural(total, 'row')}` });
      const rows = finishDeletions(db, task.sessionIds, (done) => {
        hooks.onProgress({ done, total, message: `${plural(done, 'row')} of ${total.toLocaleString('en-US')} deleted` });
        // Between batches: the rest stays marked and the next start of the service finishes it.
        if (hooks.cancelled()) throw new StudioError('cancelled', 'delete stopped; it resumes on the next start');
      });
      return { rows };
    }
    default: {
      const _exhaustive: never = task;
      return _exhaustive;
    }
  }
}
