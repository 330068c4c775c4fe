/**
 * What every export format receives and returns. An export is a mechanical re-shaping of
 * the replay (shared/replay: already valid for both APIs), plus the variant's summaries
 * for the formats that show them (markdown marks them, dag lists them).
 */
import type { ExportFormat, Replay, SessionInfo, SummaryInfo, VariantInfo } from '../contract.js';

export interface ExportInput {
  session: Pick<SessionInfo, 'id' | 'title'> & Partial<Pick<SessionInfo, 'format' | 'sourceFile' | 'tokenizer'>>;
  /** The variant's replay (buildReplay's result with its variant id). */
  replay: Replay;
  /** The variant's summaries, compacted ones included. */
  summaries: readonly SummaryInfo[];
  /**
   * Names the strategy in file names and headers when given. With its `summarizer` (kind,
   * model, prompt version, edited prompt templates) the dag and jsonl exports carry how the
   * summaries were asked for.
   */
  variant?: Pick<VariantInfo, 'id' | 'strategy' | 'params'> & Partial<Pick<VariantInfo, 'summarizer'>>;
}

/** The variant's summarizer as the exports write it: kind, model, URL, prompt version and the edited templates ({} = the defaults). */
export function exportedSummarizer(input: ExportInput): (VariantInfo['summarizer'] & { prompts: Record<string, string> }) | null {
  const s = input.variant?.summarizer;
  return s ? { ...s, prompts: s.prompts ?? {} } : null;
}

export interface ExportFile {
  fileName: string;
  mimeType: string;
  content: string;
}

export type { ExportFormat };

/** `Compaction Studio session` -> `compaction-studio-session` (at most 60 characters; 'session' when nothing is left). */
export function slug(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '') // accents go, their letters stay
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return s.length > 0 ? s : 'session';
}

/** `<session>-<strategy>-v<variant>.<ext>` */
export function exportFileName(input: ExportInput, ext: string): string {
  const strategy = input.variant?.strategy ? `-${input.variant.strategy}` : '';
  return `${slug(input.session.title)}${strategy}-v${input.replay.variantId}.${ext}`;
}
