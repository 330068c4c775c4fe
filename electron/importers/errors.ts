/**
 * The one error type bad input produces. Its message always names the file, the
 * line for line-based formats, and what was expected, so the CLI, the HTTP server
 * and the window can show it as-is.
 */
import type { z } from 'zod';

export class ImportError extends Error {
  readonly code = 'import_error' as const;
  /** The file's display name (base name for files on disk, the given name for text). */
  readonly file: string;
  /** 1-based line for JSONL input; absent for whole-document formats. */
  readonly line?: number;
  /** The message without the file/line prefix. */
  readonly detail: string;

  constructor(file: string, detail: string, line?: number) {
    super(line === undefined ? `${file}: ${detail}` : `${file}, line ${line}: ${detail}`);
    this.name = 'ImportError';
    this.file = file;
    this.line = line;
    this.detail = detail;
  }
}

/** The most characters of input an error message ever quotes. */
export const EXCERPT_CHARS = 80;

/** Control characters escaped the way JSON writes them. */
export function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * A short, escaped, quoted excerpt of input for an error message: at most EXCERPT_CHARS
 * characters of it, control characters escaped, "…" when cut. An error never echoes a
 * file (a path that was not a transcript: /etc/passwd) beyond this.
 */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  return `"${escapeControls(cut.replace(/[\\"]/g, (c) => `\\${c}`))}"${text.length > max ? '…' : ''}`;
}

export function isImportError(e: unknown): e is ImportError {
  return e instanceof ImportError;
}

/** Readable text for zod issues: "message.content: expected string or array, got number". */
export function describeZodIssues(error: z.ZodError, maxIssues = 3): string {
  const parts: string[] = [];
  for (const issue of error.issues.slice(0, maxIssues)) {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the record';
    parts.push(`${where}: ${issueText(issue)}`);
  }
  if (error.issues.length > maxIssues) parts.push(`and ${error.issues.length - maxIssues} more problem(s)`);
  return parts.join('; ');
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // "expected string or array, received number" instead of zod's bare "Invalid input".
    const expected: string[] = [];
    let received = '';
    for (const alternative of issue.errors) {
      const first = alternative[0];
      if (first && first.code === 'invalid_type' && first.path.length === 0) {
        expected.push(String(first.expected));
        received = /received (\w+)/.exec(first.message)?.[1] ?? received;
      } else if (first) {
        return `${first.path.length > 0 ? `${first.path.map(String).join('.')}: ` : ''}${issueText(first)}`;
      }
    }
    return `expected ${[...new Set(expected)].join(' or ')}${received ? `, received ${received}` : ''}`;
  }
  return issue.message.replace(/^Invalid (input|option): /, '');
}

/**
 * Validates one record with a zod schema; on failure throws an ImportError naming
 * the file, line and fields. `what` says what the record should have been.
 */
export function parseRecord<S extends z.ZodType>(schema: S, value: unknown, file: string, what: string, line?: number): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ImportError(file, `expected ${what}, but ${describeZodIssues(result.error)}`, line);
}
