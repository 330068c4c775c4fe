/**
 * `export <session> --variant V --format F [-o FILE]`: a variant's replay (what the
 * model would receive) as openai / anthropic / jsonl / markdown / dag, through the same
 * exporter the window uses (shared/export via the services' exportFor). Without -o the
 * content goes to stdout; with --json, a document naming the file (and the content when
 * no -o is given). `--format timeline` writes a replay's timeline as CSV, one row per
 * model call (shared/export/timeline.ts): the variant's newest completed replay, or `--run R`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ExportFormatSchema, StudioError, type ExportFile, type SavedExportFile } from '../../../shared/contract.js';
import { getVariant } from '../../store/variants.js';
import { exportFor } from '../../services/collaborators.js';
import { CliError, UsageError, requireSession, stringOption, type CliCommand, type CommandContext } from '../framework.js';
import type { DB } from '../../store/db.js';
import { latestReplayRun } from '../../store/replays.js';
import { replayTimeline } from '../../services/replays.js';
import { exportTimeline } from '../../../shared/export/timeline.js';

export const command: CliCommand = {
  name: 'export',
  summary: 'Export what the model sees for a variant (openai, anthropic, jsonl, markdown, dag) or a replay timeline (CSV)',
  usage: 'export <session> --variant V --format F [-o FILE] [--db PATH] [--json]\n       export <session> (--variant V | --run R) --format timeline [-o FILE]',
  options: {
    variant: { type: 'string', valueName: 'V', description: 'variant id (see `compaction-studio variants <session>`)' },
    run: { type: 'string', valueName: 'R', description: 'replay run id, for --format timeline (default: the variant\'s newest completed replay)' },
    format: { type: 'string', short: 'f', valueName: 'F', description: `export format: ${[...ExportFormatSchema.options, 'timeline'].join(', ')}` },
    output: { type: 'string', short: 'o', valueName: 'FILE', description: 'write to FILE instead of stdout' },
  },
  minPositionals: 1,
  maxPositionals: 1,
  run(ctx) {
    const db = ctx.openDb();
    const session = requireSession(db, ctx.positionals[0]);
    if (stringOption(ctx, 'format') === 'timeline') return writeFile(ctx, timelineFile(ctx, db, session));
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
    return writeFile(ctx, file);
  },
};

/** A replay's timeline CSV: --run R, else the variant's newest completed replay. */
function timelineFile(ctx: CommandContext, db: DB, session: { id: number; title: string }): ExportFile {
  const runArg = stringOption(ctx, 'run');
  const variantArg = stringOption(ctx, 'variant');
  const id = (v: string, what: string) => {
    if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${what} must be a positive number, got "${v}"`);
    return Number(v);
  };
  let runId: number | null;
  if (runArg !== undefined) runId = id(runArg, 'run');
  else if (variantArg !== undefined) {
    const variant = getVariant(db, id(variantArg, 'variant'));
    if (!variant || variant.sessionId !== session.id) throw new CliError(`session ${session.id} has no variant ${variantArg}`, 'not_found', 1);
    runId = latestReplayRun(db, variant.id);
    if (runId === null) throw new CliError(`variant ${variant.id} has no completed replay (run \`compaction-studio replay ${session.id} --strategy ${variant.strategy} ...\` first)`, 'not_found', 1);
  } else throw new UsageError('--format timeline needs --run R or --variant V');
  try {
    const t = replayTimeline(db, runId);
    if (t.sessionId !== session.id) throw new CliError(`replay run ${runId} belongs to session ${t.sessionId}, not ${session.id}`, 'not_found', 1);
    return exportTimeline(t, session);
  } catch (e) {
    throw e instanceof StudioError ? new CliError(e.message, e.code, 1) : e;
  }
}

function writeFile(ctx: CommandContext, file: ExportFile): number {
  const output = stringOption(ctx, 'output');
  if (output !== undefined) {
    const target = path.resolve(ctx.cwd, output);
    fs.writeFileSync(target, file.content);
    if (ctx.jsonMode) ctx.json({ fileName: file.fileName, mimeType: file.mimeType, savedTo: target, bytes: Buffer.byteLength(file.content) } satisfies SavedExportFile);
    else ctx.err(`wrote ${Buffer.byteLength(file.content)} bytes to ${target}`);
    return 0;
  }
  if (ctx.jsonMode) ctx.json(file);
  else ctx.stdout.write(file.content.endsWith('\n') ? file.content : `${file.content}\n`);
  return 0;
}
