/** The importer registry: format name -> importer. */
import { anthropicImporter } from './anthropic.js';
import { claudeCodeImporter } from './claude-code.js';
import { codexImporter } from './codex.js';
import { openaiImporter } from './openai.js';
import { openhandsImporter } from './openhands.js';
import { sharegptImporter } from './sharegpt.js';
import { sweAgentImporter } from './swe-agent.js';
import { tauBenchImporter } from './tau-bench.js';
import type { FormatName, Importer } from './types.js';

export const IMPORTERS: Record<FormatName, Importer> = {
  'claude-code': claudeCodeImporter,
  openai: openaiImporter,
  anthropic: anthropicImporter,
  openhands: openhandsImporter,
  'swe-agent': sweAgentImporter,
  sharegpt: sharegptImporter,
  codex: codexImporter,
  'tau-bench': tauBenchImporter,
};

export { FORMATS, isFormatName, type FormatName, type ImportedSession, type ImportedExternalCompaction } from './types.js';
export { ImportError, isImportError } from './errors.js';
export { detectDocument, detectJsonlRecord } from './detect.js';
