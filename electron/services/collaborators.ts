/**
 * Replay and export over the stored data: the shared buildReplay / exportVariant fed
 * from the store, for the service and the CLI. (The service calls the importers and the
 * demo directly; the engine is called from pass-job.ts.)
 */
import { redactHeldSecretsIn } from '../held-secrets.js';
import type { DB } from '../store/db.js';
import { getSession } from '../store/sessions.js';
import { listTurns } from '../store/turns.js';
import { getVariant, listSummaries } from '../store/variants.js';
import { countTokens, DEFAULT_TOKENIZER, isTokenizerName } from '../tokenizer.js';
import { StudioError, type ExportFile, type ExportFormat, type Replay, type SummaryInfo } from '../../shared/contract.js';
import { prepareStrategy } from '../../shared/strategies/index.js';
import type { StrategyName, VariantState } from '../../shared/strategies/types.js';
import { exportVariant } from '../../shared/export/index.js';
import { buildReplay } from '../../shared/replay/index.js';

/** The message list the model would receive for a variant (the shared buildReplay over the stored data). */
export function replayFor(db: DB, variantId: number): Replay {
  const variant = getVariant(db, variantId);
  if (!variant) throw new StudioError('not_found', `variant ${variantId} does not exist`);
  const result = replayOver(db, variant.sessionId, { strategy: variant.strategy, params: variant.params, summaries: listSummaries(db, variantId), state: variant.state });
  return { variantId, ...result };
}

/**
 * What the model would receive under draft parameters (no variant yet: no summaries, empty
 * state): the Context view of a slider state, without creating a variant.
 */
export function replayDraftFor(db: DB, sessionId: number, strategy: StrategyName, rawParams: Record<string, unknown>): Omit<Replay, 'variantId'> & { variantId: null } {
  if (!getSession(db, sessionId)) throw new StudioError('not_found', `session ${sessionId} does not exist`);
  const { params } = prepareStrategy(strategy, rawParams);
  return { variantId: null, ...replayOver(db, sessionId, { strategy, params, summaries: [], state: {} }) };
}

function replayOver(db: DB, sessionId: number, v: { strategy: StrategyName; params: Record<string, number | string | boolean>; summaries: SummaryInfo[]; state: VariantState }): Omit<Replay, 'variantId'> {
  const session = getSession(db, sessionId);
  const tokenizer = session && isTokenizerName(session.tokenizer) ? session.tokenizer : DEFAULT_TOKENIZER;
  // Replays repeat the same blocks across calls and strategies: count each text once.
  const counted = new Map<string, number>();
  const count = (text: string) => {
    let n = counted.get(text);
    if (n === undefined) counted.set(text, (n = countTokens(text, tokenizer)));
    return n;
  };
  const result = buildReplay({ strategy: v.strategy, turns: listTurns(db, sessionId), summaries: v.summaries, state: v.state, params: v.params, countTokens: count });
  return { messages: result.messages, totalTokens: result.totalTokens };
}

/** A variant's replay as a file in one of the export formats (the shared exportVariant). */
export function exportFor(db: DB, variantId: number, format: ExportFormat): ExportFile {
  const variant = getVariant(db, variantId);
  if (!variant) throw new StudioError('not_found', `variant ${variantId} does not exist`);
  const session = getSession(db, variant.sessionId);
  if (!session) throw new StudioError('not_found', `session ${variant.sessionId} does not exist`);
  const file = exportVariant(format, {
    session: { id: session.id, title: session.title, format: session.format, sourceFile: session.sourceFile, tokenizer: session.tokenizer },
    replay: replayFor(db, variantId),
    summaries: listSummaries(db, variantId),
    variant: { id: variant.id, strategy: variant.strategy, params: variant.params, summarizer: variant.summarizer },
  });
  // What is exported leaves the app: no held secret value goes with it (shared/redact.ts).
  return redactHeldSecretsIn(file);
}
