/**
 * Commands as facts: the canonical form of a shell command (its identity in a ledger) and
 * the outcome a tool result reports. One place for both so the ledger, the extractive summarizer
 * and survival matching agree on what "the same command" is.
 */

/** Pipes that only trim output: `mix test 2>&1 | tail -30` is the command `mix test`. */
const TRAILING_FILTER_RE = /\s*\|\s*(?:head|tail|grep|rg|wc|sort|uniq|less|more|cat|tee|sed|awk|cut|jq)\b[^|]*$/;
const CD_PREFIX_RE = /^cd\s+(?:"[^"]*"|'[^']*'|\S+)\s*(?:&&|;)\s*/;
const MAX_COMMAND_CHARS = 160;

/**
 * The canonical command: leading `cd DIR &&` dropped, `2>&1` and trailing output filters
 * dropped, a heredoc cut where it opens, the first line only, whitespace collapsed.
 * Returns '' for a command that is nothing but a `cd`.
 */
export function canonicalCommand(raw: string): string {
  let c = raw.trim();
  for (let i = 0; i < 4 && CD_PREFIX_RE.test(c); i++) c = c.replace(CD_PREFIX_RE, '');
  const heredoc = c.search(/"?\$\(cat\s*<<|<<-?\s*['"]?\w+['"]?/);
  if (heredoc > 0) c = c.slice(0, heredoc);
  const nl = c.indexOf('\n');
  if (nl >= 0) c = c.slice(0, nl);
  c = c.replace(/\s*\d?>&\d/g, '').replace(/\s*2>\s*\/dev\/null/g, '');
  for (let i = 0; i < 4 && TRAILING_FILTER_RE.test(c); i++) c = c.replace(TRAILING_FILTER_RE, '');
  c = c.replace(/\s+/g, ' ').replace(/\s*(?:&&|;|\\)\s*$/, '').trim();
  if (/^cd(?:\s|$)/.test(c) && !c.includes('&&')) return '';
  return c.length <= MAX_COMMAND_CHARS ? c : c.slice(0, MAX_COMMAND_CHARS).replace(/\s+\S*$/, '');
}

/** A command string out of a tool input: Bash `command`, Codex `shell` argv (`bash -lc CMD`), `cmd`. */
export function commandOfInput(toolName: string, input: Record<string, unknown>): string | null {
  const name = toolName.toLowerCase();
  const isShellTool = /bash|shell|exec|terminal|run_command|run_in_terminal|cmd/.test(name);
  if (!isShellTool) return null;
  const c = input.command ?? input.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    const argv = c as string[];
    // ['bash', '-lc', 'npm test'] → the script; otherwise the argv joined.
    if (argv.length >= 3 && /^(?:ba|z)?sh$/.test(argv[0]) && /^-\w*c$/.test(argv[1])) return argv.slice(2).join(' ');
    return argv.join(' ');
  }
  return null;
}

export interface CommandOutcome {
  ok: boolean;
  exitCode: number | null;
  /** The line that says what went wrong (failed runs only). */
  errorLine: string | null;
}

const EXIT_CODE_RE = /\bexit(?:ed with)?(?: code|_code| status)?[:\s]+(-?\d{1,3})\b/i;
const ERROR_LINE_RE = /\b(?:error|exception|failed|failure|fatal|panic|cannot|not found|denied|refused|undefined|unknown)\b|\*\*\s*\(/i;

/** The outcome a tool result reports: the harness's error flag, an `Exit code N` line, the first error line. */
export function outcomeOf(lines: readonly string[], isError: boolean): CommandOutcome {
  let exitCode: number | null = null;
  // The exit code is stated on the first or last lines (Claude Code: "Exit code 2" first; OpenHands: last).
  for (const line of [lines[0], lines[1], lines[lines.length - 1]]) {
    if (line === undefined) continue;
    const m = EXIT_CODE_RE.exec(line);
    if (m) {
      exitCode = Number(m[1]);
      break;
    }
  }
  const ok = !isError && (exitCode === null || exitCode === 0);
  if (ok) return { ok, exitCode, errorLine: null };
  let errorLine: string | null = null;
  let firstOther: string | null = null;
  for (const raw of lines) {
    const line = raw.replace(/<\/?[\w-]+>/g, '').trim();
    if (line.length === 0 || (EXIT_CODE_RE.test(line) && line.length < 24)) continue;
    firstOther ??= line;
    if (ERROR_LINE_RE.test(line)) {
      errorLine = line;
      break;
    }
  }
  return { ok, exitCode, errorLine: errorLine ?? firstOther };
}
