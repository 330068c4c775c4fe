/**
 * The CLI runner: `runCli(argv, io)` parses the command line, runs the command and
 * returns the exit code. Kept free of process globals (io carries stdout, stderr,
 * env, cwd) so tests can run it in-process as well as by spawning main.ts.
 */
import { redactHeldSecrets } from '../held-secrets.js';
import { StudioError } from '../../shared/contract.js';
import { holdEnvironmentSecrets } from '../services/secrets.js';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { defaultCliDatabasePath, openDatabase, readOnlyReason, type DB } from '../store/db.js';
import { databaseErrorOf } from '../store/db-errors.js';
import { isImportError } from '../importers/errors.js';
import { COMMANDS, loadCommand } from './commands/index.js';
import { CliError, UsageError, type CliCommand, type CommandContext, type OptionSpec, type Output } from './framework.js';

export const PROGRAM = 'compaction-studio';

export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal?: AbortSignal;
}

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  db: { type: 'string', valueName: 'PATH', description: 'database file (default: $COMPACTION_STUDIO_DB, else $XDG_DATA_HOME/compaction-studio/studio.db)' },
  json: { type: 'boolean', description: 'print one JSON document on stdout (errors as JSON on stderr)' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}`;
    return [flag, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}`] as const;
  });
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

export function commandHelp(cmd: CliCommand): string {
  const lines = [`Usage: ${PROGRAM} ${cmd.usage}`, '', cmd.summary];
  if (cmd.description) lines.push('', cmd.description);
  if (Object.keys(cmd.options).length > 0) lines.push('', 'Options:', ...optionLines(cmd.options));
  lines.push('', 'Global options:', ...optionLines(GLOBAL_OPTIONS));
  return `${lines.join('\n')}\n`;
}

async function programHelp(): Promise<string> {
  const commands = await Promise.all(Object.keys(COMMANDS).map((name) => loadCommand(name)));
  const width = Math.max(...commands.map((c) => c!.name.length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Compaction Studio: import agent transcripts, compact them, compare the results.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c!.name.padEnd(width)}  ${c!.summary}`),
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    `Run '${PROGRAM} <command> --help' for a command's options.`,
    'Exit codes: 0 success, 1 failure, 2 usage error.',
    '',
  ].join('\n');
}

function errorPayload(e: unknown, dbPath: string | null, db: DB | null): { code: string; message: string; file?: string; line?: number } {
  if (isImportError(e)) return { code: e.code, message: e.message, file: e.file, ...(e.line !== undefined ? { line: e.line } : {}) };
  if (e instanceof CliError) return { code: e.code, message: e.message };
  // The contract's own errors (busy, not_found…) keep their code.
  if (e instanceof StudioError) return { code: e.code, message: e.message };
  // The file itself failed (damaged, full, locked, read-only, cannot be opened): its path and what to do.
  const dbError = dbPath === null ? null : databaseErrorOf(e, dbPath, db ? readOnlyReason(db) : null);
  if (dbError) return { code: dbError.code, message: dbError.message, file: dbError.file };
  const err = e as Error;
  // SQLite's own messages (e.g. the immutability triggers) are meaningful as they are.
  return { code: (err as { code?: string }).code?.startsWith('SQLITE') ? 'database_error' : 'internal', message: err?.message ?? String(e) };
}

/**
 * Control characters a terminal would act on (ESC starts a sequence that can retitle the window,
 * move the cursor, hide text), written as `\u001b`: a file name or a title may carry them.
 * Tab, newline and carriage return (the progress bar) stay.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function escapeForTerminal(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `out` with every held secret value removed from what is written (shared/redact.ts) and, on a
 * terminal, its control characters escaped (a pipe or a file gets the bytes as they are; stderr,
 * which carries messages and never data, is always escaped).
 */
function redactingOutput(out: Output, escapeAlways = false): Output {
  const tty = escapeAlways || out.isTTY === true;
  return { write: (text: string) => out.write(tty ? escapeForTerminal(redactHeldSecrets(text)) : redactHeldSecrets(text)), ...(out.isTTY === undefined ? {} : { isTTY: out.isTTY }) };
}

export async function runCli(argv: readonly string[], given: CliIo): Promise<number> {
  // No secret this process holds (the environment's keys, a key a summarizer was built with)
  // reaches stdout or stderr: every write passes through the redaction by value.
  holdEnvironmentSecrets(given.env);
  const io: CliIo = { ...given, stdout: redactingOutput(given.stdout), stderr: redactingOutput(given.stderr, true) };
  const jsonRequested = argv.includes('--json');
  let db: DB | null = null;
  let dbPath: string | null = null;
  const reportError = (e: unknown, command?: string): number => {
    const payload = errorPayload(e, dbPath, db);
    const exitCode = e instanceof CliError ? e.exitCode : 1;
    if (jsonRequested) io.stderr.write(`${JSON.stringify({ error: payload })}\n`);
    else {
      io.stderr.write(`${PROGRAM}: ${payload.message}\n`);
      if (e instanceof UsageError) io.stderr.write(`Run '${PROGRAM} ${command ? `${command} ` : ''}--help' for usage.\n`);
    }
    return exitCode;
  };

  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    const cmd = topic ? await loadCommand(topic) : null;
    if (topic && !cmd) return reportError(new UsageError(`unknown command "${topic}"`));
    // No command at all is a usage error: help goes to stderr, stdout stays clean.
    (name === undefined ? io.stderr : io.stdout).write(cmd ? commandHelp(cmd) : await programHelp());
    return name === undefined ? 2 : 0;
  }
  const cmd = await loadCommand(name);
  if (!cmd) return reportError(new UsageError(`unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`));

  try {
    const options = { ...GLOBAL_OPTIONS, ...cmd.options };
    let parsed: { values: Record<string, unknown>; positionals: string[] };
    try {
      const config: ParseArgsConfig = {
        args: [...rest],
        options: Object.fromEntries(Object.entries(options).map(([k, s]) => [k, { type: s.type, ...(s.short ? { short: s.short } : {}), ...(s.multiple ? { multiple: true } : {}) }])),
        allowPositionals: true,
        strict: true,
      };
      parsed = parseArgs(config) as typeof parsed;
    } catch (e) {
      throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
    }
    if (parsed.values.help) {
      io.stdout.write(commandHelp(cmd));
      return 0;
    }
    const positionals = parsed.positionals;
    if (cmd.minPositionals !== undefined && positionals.length < cmd.minPositionals) throw new UsageError(`${cmd.name}: missing arguments (usage: ${PROGRAM} ${cmd.usage})`);
    if (cmd.maxPositionals !== undefined && positionals.length > cmd.maxPositionals) throw new UsageError(`${cmd.name}: too many arguments (usage: ${PROGRAM} ${cmd.usage})`);
    const dbOption = parsed.values.db;
    dbPath = typeof dbOption === 'string' && dbOption.length > 0 ? path.resolve(io.cwd, dbOption) : defaultCliDatabasePath(io.env);
    const dbFile = dbPath;
    const jsonMode = parsed.values.json === true;
    const ctx: CommandContext = {
      positionals,
      options: parsed.values as CommandContext['options'],
      jsonMode,
      dbPath: dbFile,
      // A write that must wait for another process (the app compacting) says so instead of failing.
      openDb: () => {
        if (db) return db;
        db = openDatabase(dbFile, { onWriteWait: (message) => void io.stderr.write(`${PROGRAM}: ${message}\n`) });
        // Opened read-only (a read-only file, a newer schema): said once; a write then fails with the same reason.
        const readOnly = readOnlyReason(db);
        if (readOnly !== null) io.stderr.write(`${PROGRAM}: warning: ${readOnly}\n`);
        return db;
      },
      out: (line) => void io.stdout.write(`${line}\n`),
      err: (line) => void io.stderr.write(`${line}\n`),
      json: (value) => void io.stdout.write(`${JSON.stringify(value)}\n`),
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env,
      cwd: io.cwd,
      signal: io.signal ?? new AbortController().signal,
    };
    return await cmd.run(ctx);
  } catch (e) {
    return reportError(e, cmd.name);
  } finally {
    (db as DB | null)?.close();
  }
}
