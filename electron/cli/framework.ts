/**
 * The CLI's command interface. A command is a plain object: name, one-line summary,
 * usage, its options (node:util parseArgs shape) and `run(ctx)` returning an exit
 * code. The runner (run.ts) parses arguments, opens the database lazily, routes
 * output and turns thrown errors into stderr messages and exit codes, so commands
 * only do their work. Register a command in commands/index.ts.
 *
 * Exit codes: 0 success, 1 failure (bad input, not found, runtime error), 2 usage error.
 * With --json, stdout carries exactly one JSON document and nothing else.
 */
import type { DB } from '../store/db.js';
import { getSession, type SessionSummary } from '../store/sessions.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** Repeatable (`--set a=1 --set b=2`): the value is a string[]. */
  multiple?: boolean;
  description: string;
  /** Placeholder shown in help, e.g. "FILE". */
  valueName?: string;
}

export type OptionValue = string | boolean | string[] | undefined;

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CommandContext {
  /** Arguments after the command name that are not options. */
  positionals: string[];
  /** Parsed options by long name (globals included: db, json). */
  options: Record<string, OptionValue>;
  /** --json given: print one JSON document on stdout (use ctx.json()). */
  jsonMode: boolean;
  /** The database path in effect: --db, else $COMPACTION_STUDIO_DB, else the XDG default. */
  dbPath: string;
  /** Opens (once) and migrates the database; the runner closes it. */
  openDb(): DB;
  /** Writes one line (a '\n' is added) to stdout. */
  out(line: string): void;
  /** Writes one line to stderr (progress, warnings; never data). */
  err(line: string): void;
  /** Prints `value` as the command's one JSON document on stdout. */
  json(value: unknown): void;
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

export interface CliCommand {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Synopsis after the program name, e.g. "import <file...> [--format F]". */
  usage: string;
  /** Longer help text (optional). */
  description?: string;
  options: Record<string, OptionSpec>;
  /** Positional count bounds (checked by the runner; usage error outside them). */
  minPositionals?: number;
  maxPositionals?: number;
  run(ctx: CommandContext): number | Promise<number>;
}

/** An error the user can act on: message to stderr, `exitCode` out. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string = 'error',
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Wrong arguments: exit code 2 and a pointer to --help. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 'usage', 2);
    this.name = 'UsageError';
  }
}

export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.options[name];
  if (v === undefined || typeof v === 'string') return v;
  if (Array.isArray(v)) return v[v.length - 1];
  throw new UsageError(`--${name} needs a value`);
}

/** A non-negative integer option, or the default (undefined when none is given). */
export function intOption(ctx: CommandContext, name: string, fallback: number): number;
export function intOption(ctx: CommandContext, name: string): number | undefined;
export function intOption(ctx: CommandContext, name: string, fallback?: number): number | undefined {
  const v = stringOption(ctx, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
  return Number(v);
}

/** A session id argument: a positive integer naming an existing session. */
export function requireSession(db: DB, arg: string | undefined): SessionSummary {
  if (arg === undefined) throw new UsageError('missing <session> (a session id; see `compaction-studio sessions`)');
  if (!/^\d+$/.test(arg) || Number(arg) < 1) throw new UsageError(`<session> must be a session id (a positive number), got "${arg}"`);
  const session = getSession(db, Number(arg));
  if (!session) throw new CliError(`no session with id ${arg} (see \`compaction-studio sessions\`)`, 'not_found', 1);
  return session;
}

export interface Column<T> {
  header: string;
  value: (row: T) => string | number;
  /** Right-align (numbers). Default: numbers right, text left. */
  align?: 'left' | 'right';
  /** Truncate longer cells to this width with an ellipsis. */
  maxWidth?: number;
}

function clip(text: string, max: number | undefined): string {
  const one = text.replace(/\s+/g, ' ');
  if (max === undefined || one.length <= max) return one;
  return `${one.slice(0, Math.max(0, max - 1))}…`;
}

/** Aligned columns, two spaces apart, header first; the last column is not padded. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string[] {
  const cells = rows.map((r) => columns.map((c) => c.value(r)));
  const texts = cells.map((row) => row.map((v, i) => clip(String(v), columns[i].maxWidth)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...texts.map((row) => row[i].length)));
  const right = columns.map((c, i) => c.align === 'right' || (c.align === undefined && cells.length > 0 && cells.every((row) => typeof row[i] === 'number')));
  const line = (row: string[]): string =>
    row
      .map((t, i) => (i === row.length - 1 && !right[i] ? t : right[i] ? t.padStart(widths[i]) : t.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...texts.map(line)];
}
