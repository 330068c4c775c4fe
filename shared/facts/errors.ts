/**
 * When an error counts as fixed: a later success on the same thing. A failed tool call is
 * fixed by a later successful call of the same tool on the same target (`Edit:lib/foo.ex`); a
 * failed command by a later successful command that is the same command, runs the same
 * target (`mix test` after `mix test test/a_test.exs:12` failed; `npm run build` after
 * `npm run build -- --watch`), or names the same file (`elixir lib/foo.ex` after
 * `mix compile lib/foo.ex`, or after an error line that points into `lib/foo.ex`). Keys:
 * `target:<program and subcommand>`, `file:<last two segments of the path>`.
 */

/** Programs whose second (and third, for `run`/`-m`/`exec`) word says what they run. */
/** Programs whose first argument names what runs (a plain constant list: shared/ keeps no mutable module state). */
const SUBCOMMAND_PROGRAMS: readonly string[] = ['mix', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'cargo', 'go', 'git', 'make', 'dotnet', 'gradle', './gradlew', 'mvn', 'poetry', 'uv', 'deno', 'bundle', 'rake', 'rails', 'docker', 'kubectl', 'python', 'python3', 'node', 'zig', 'swift', 'stack', 'cabal', 'dune', 'rebar3', 'elixir', 'iex'];
const RUNNERS: readonly string[] = ['run', 'exec', '-m', 'x', 'test', 'dlx'];

/** Commands that only show files or search them. */
const VIEWER_RE = /^(?:cat|ls|head|tail|less|more|grep|rg|find|fd|wc|stat|file|echo|tree|du|diff|git\s+(?:diff|log|show|status|blame))\b/;

/** The file key of a path: its last two segments (`/home/u/p/lib/foo.ex` and `lib/foo.ex` are one file). */
export function fileKey(path: string): string {
  const segs = path.replace(/^\.\//, '').replace(/\/+$/, '').split('/').filter((s) => s.length > 0);
  return `file:${segs.slice(-2).join('/')}`;
}

/**
 * What a command runs, without its arguments: the program, and for a program with
 * subcommands the subcommand (two words, three after `run`, `exec`, `-m`: `npm run build`,
 * `python -m pytest`). Null for an empty command. Environment assignments in front are skipped.
 */
export function commandTarget(canonical: string): string | null {
  const words = canonical.split(' ').filter((w) => w.length > 0);
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++;
  if (i >= words.length) return null;
  const program = words[i];
  const out = [program];
  if (SUBCOMMAND_PROGRAMS.includes(program.replace(/^.*\//, '')) || SUBCOMMAND_PROGRAMS.includes(program)) {
    const sub = words[i + 1];
    if (sub && /^[A-Za-z][\w:.-]*$/.test(sub) && !sub.includes('/') && !/\.\w+$/.test(sub)) {
      out.push(sub);
      const third = words[i + 2];
      if (RUNNERS.includes(sub) && third && /^[A-Za-z][\w:.-]*$/.test(third) && !third.includes('/')) out.push(third);
    } else if (sub === '-m' && words[i + 2]) out.push('-m', words[i + 2]);
  }
  return out.join(' ');
}

/** The keys (besides `command:<canonical>`) whose errors a success of this command fixes, and under which its own failure is fixed. */
export function commandFixKeys(canonical: string, paths: readonly string[]): string[] {
  const keys: string[] = [];
  const target = commandTarget(canonical);
  if (target) keys.push(`target:${target}`);
  // A command that only shows a file says nothing about whether what failed on it works now.
  if (!VIEWER_RE.test(canonical)) for (const p of paths) keys.push(fileKey(p));
  return [...new Set(keys)];
}
