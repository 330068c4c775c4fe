/**
 * Replay and export over the stored data: the shared buildReplay / exportVariant fed
 * from the store, for the service and the CLI. (The service calls the importers and the
 * demo directly; the engine is called from pass-job.ts.)
 */
import type { DB } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import { listTurns } from '../store/turns.js';
import { getVariant, listSummaries } from '../store/variants.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName } from '../tokenizer.js';
import { StudioError, type ExportFile, type ExportFormat, type Replay } from '../../shared/contract.js';
import { exportVariant } from '../../shared/export/index.js';
import { buildReplay } from '../../shared/replay/index.js';

/** The message list the model would receive for a variant (the shared buildReplay over the stored data). */
export function replayFor(db: DB, variantId: number): Replay {
  const variant = getVariant(db, variantId);
  if (!variant) throw new StudioError('not_found', `variant ${variantId} does not exist`);
  const session = getSession(db, variant.sessionId);
  const tokenizer = session && isTokenizerName(session.tokenizer) ? session.tokenizer : DEFAULT_TOKENIZER;
  // Replays repeat the same blocks across calls and strategies: count each text once.
  const counted = new Map<string, number>();
  const count = (text: string) => {
    let n = counted.get(text);
    if (n === undefined) counted.set(text, (n = countTokens(text, tokenizer)));
    return n;
  };
  const result = buildReplay({
    strategy: variant.strategy,
    turns: listTurns(db, variant.sessionId),
    summaries: listSummaries(db, variantId),
    state: variant.state,
    params: variant.params,
    countTokens: count,
  });
  return { variantId, messages: result.messages, totalTokens: result.totalTokens };
}

/** A variant's replay as a file in one of the export formats (the shared exportVariant). */
export function exportFor(db: DB, variantId: number, format: ExportFormat): ExportFile {
  const variant = getVariant(db, variantId);
  if (!variant) throw new StudioError('not_found', `variant ${variantId} does not exist`);
  const session = getSession(db, variant.sessionId);
  if (!session) throw new StudioError('not_found', `session ${variant.sessionId} does not exist`);
  return exportVariant(format, {
    session: { id: session.id, title: session.title, format: session.format, sourceFile: session.sourceFile, tokenizer: session.tokenizer },
    replay: replayFor(db, variantId),
    summaries: listSummaries(db, variantId),
    variant: { id: variant.id, strategy: variant.strategy, params: variant.params, summarizer: variant.summarizer },
  });
}
