/**
 * `export <session> --variant V --format F [-o FILE]`: a variant's replay (what the
 * model would receive) as openai / anthropic / jsonl / markdown / dag, through the same
 * exporter the window uses (shared/export via the services' exportFor). Without -o the
 * content goes to stdout; with --json, a document naming the file (and the content when
 * no -o is given).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ExportFormatSchema, StudioError, type ExportFile, type SavedExportFile } from '../../../shared/contract.js';
import { getVariant } from '../../store/variants.js';
import { exportFor } from '../../services/collaborators.js';
import { CliError, UsageError, requireSession, stringOption, type CliCommand } from '../framework.js';

export const command: CliCommand = {
  name: 'export',
  summary: 'Export what the model sees for a variant (openai, anthropic, jsonl, markdown, dag)',
  usage: 'export <session> --variant V --format F [-o FILE] [--db PATH] [--json]',
  options: {
    variant: { type: 'string', valueName: 'V', description: 'variant id (see `compaction-studio variants <session>`)' },
    format: { type: 'string', short: 'f', valueName: 'F', description: `export format: ${ExportFormatSchema.options.join(', ')}` },
    output: { type: 'string', short: 'o', valueName: 'FILE', description: 'write to FILE instead of stdout' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    const variantArg = stringOption(ctx, 'variant');
    if (variantArg === undefined) throw new UsageError('--variant is required (see `compaction-studio variants <session>`)');
    if (!/^\d+$/.test(variantArg) || Number(variantArg) < 1) throw new UsageError(`--variant must be a variant id (a positive number), got "${variantArg}"`);
    const formatArg = stringOption(ctx, 'format');
    const format = ExportFormatSchema.safeParse(formatArg);
    if (!format.success) throw new UsageError(`--format must be one of ${ExportFormatSchema.options.join(', ')}${formatArg === undefined ? '' : `, got "${formatArg}"`}`);
    const variant = getVariant(db, Number(variantArg));
    if (!variant || variant.sessionId !== session.id) throw new CliError(`session ${session.id} has no variant ${variantArg} (see \`compaction-studio variants ${session.id}\`)`, 'not_found', 1);
    let file: ExportFile;
    try {
      file = exportFor(db, variant.id, format.data);
    } catch (e) {
      throw e instanceof StudioError ? new CliError(e.message, e.code, 1) : e;
    }
    const output = stringOption(ctx, 'output');
    if (output !== undefined) {
      const target = path.resolve(ctx.cwd, output);
      fs.writeFileSync(target, file.content);
      if (ctx.jsonMode) ctx.json({ fileName: file.fileName, mimeType: file.mimeType, savedTo: target, bytes: Buffer.byteLength(file.content) } satisfies SavedExportFile);
      else ctx.err(`wrote ${Buffer.byteLength(file.content)} bytes (${format.data}) to ${target}`);
      return 0;
    }
    if (ctx.jsonMode) ctx.json(file);
    else ctx.stdout.write(file.content.endsWith('\n') ? file.content : `${file.content}\n`);
    return 0;
  },
};
