/**
 * exportVariant: a variant's replay as a file, in one of the formats of the contract
 * (`ExportFormat`): openai, anthropic, jsonl, markdown, dag. Pure (shared/): the main
 * process writes the file, browser mode downloads it.
 */
import type { ExportFormat } from '../contract.js';
import { exportAnthropic } from './anthropic.js';
import { exportDag } from './dag.js';
import { exportJsonl } from './jsonl.js';
import { exportMarkdown } from './markdown.js';
import { exportOpenAi } from './openai.js';
import type { ExportFile, ExportInput } from './types.js';

export function exportVariant(format: ExportFormat, input: ExportInput): ExportFile {
  switch (format) {
    case 'openai':
      return exportOpenAi(input);
    case 'anthropic':
      return exportAnthropic(input);
    case 'jsonl':
      return exportJsonl(input);
    case 'markdown':
      return exportMarkdown(input);
    case 'dag':
      return exportDag(input);
    default: {
      const _exhaustive: never = format;
      return _exhaustive;
    }
  }
}

export { toOpenAiMessages, type OpenAiMessage } from './openai.js';
export { toAnthropicRequest, type AnthropicRequest, type AnthropicBlock } from './anthropic.js';
export { toMarkdown } from './markdown.js';
export { toDag, type DagExport } from './dag.js';
export { slug, exportFileName, type ExportFile, type ExportInput } from './types.js';
export { exportComparisonJson, exportComparisonMarkdown, comparisonMarkdown } from './comparison.js';
