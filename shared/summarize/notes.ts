/**
 * What the extractive summarizer knows of a span: its own reading of the turns (read-turns.ts)
 * or of a child summary's text (summary-facts.ts), as a hand-off. Nothing here comes from the
 * loss ledger (shared/facts/): the ledger grades summaries and stays independent of them.
 *
 * Notes merge in time order (`mergeNotes`): the lists are unions (a later mention updates an
 * entry: a command's latest result, a file's counts, an error's resolution), and the state of
 * the work — the current task, its state, the last error standing, the stated intent, the todo
 * list and the remaining subtasks — is the newest part's that has one.
 */

export type TodoStatus = 'pending' | 'in_progress' | 'completed';

export interface FileNote {
  path: string;
  /** Created in the span (a new file), else it existed: modified when written or edited. */
  created: boolean;
  read: number;
  edited: number;
  written: number;
  order: number;
}

export interface CommandNote {
  command: string;
  runs: number;
  failures: number;
  /** The latest run's outcome: "ok", "failed (exit 1): <message>", test counts. */
  result: string;
  ok: boolean;
  order: number;
}

export interface ErrorNote {
  /** The line that says what went wrong (not the first line of the output). */
  message: string;
  /** Where it came from: the command or the tool and file. */
  source: string;
  /** What resolved it (a later command or edit on the same target), or null: still open. */
  resolution: string | null;
  /** Targets a later success must share to resolve it: path arguments, or the program and its subcommand. */
  keys: string[];
  order: number;
}

export interface Dated {
  text: string;
  order: number;
  /** Times it was seen (mentions raise an entry's rank). */
  mentions?: number;
}

export interface HandoffNotes {
  /** Items read (turns or summaries): orders are item indexes scaled by this. */
  itemCount: number;
  requests: Dated[];
  /** Concrete values the work must honour (task specs, plan files, the user's own words). */
  constraints: Dated[];
  commits: Dated[];
  closed: Dated[];
  testsPassed: Dated[];
  task: Dated | null;
  state: Dated | null;
  standing: Dated | null;
  intent: Dated | null;
  todos: Array<{ text: string; status: TodoStatus }>;
  remaining: Dated[];
  decisions: Dated[];
  errors: ErrorNote[];
  files: FileNote[];
  commands: CommandNote[];
  identifiers: Dated[];
}

export function emptyNotes(itemCount = 0): HandoffNotes {
  return {
    itemCount,
    requests: [],
    constraints: [],
    commits: [],
    closed: [],
    testsPassed: [],
    task: null,
    state: null,
    standing: null,
    intent: null,
    todos: [],
    remaining: [],
    decisions: [],
    errors: [],
    files: [],
    commands: [],
    identifiers: [],
  };
}

/** A union of dated texts by key (the first order kept, mentions summed). */
function unionDated(lists: readonly Dated[][], key: (d: Dated) => string = (d) => d.text.toLowerCase()): Dated[] {
  const byKey = new Map<string, Dated>();
  for (const list of lists) {
    for (const d of list) {
      const k = key(d);
      const had = byKey.get(k);
      if (had) had.mentions = (had.mentions ?? 1) + (d.mentions ?? 1);
      else byKey.set(k, { ...d });
    }
  }
  return [...byKey.values()];
}

/**
 * The notes of consecutive parts as one span's, oldest first. `offsets` shift each part's
 * orders so time order holds across parts (a part's orders start at its offset).
 */
export function mergeNotes(parts: readonly HandoffNotes[]): HandoffNotes {
  if (parts.length === 1) return parts[0];
  const out = emptyNotes(0);
  const shifted: HandoffNotes[] = [];
  for (const p of parts) {
    const at = out.itemCount;
    const shift = <T extends { order: number }>(x: T): T => ({ ...x, order: x.order + at });
    shifted.push({
      ...p,
      requests: p.requests.map(shift),
      constraints: p.constraints.map(shift),
      commits: p.commits.map(shift),
      closed: p.closed.map(shift),
      testsPassed: p.testsPassed.map(shift),
      task: p.task && shift(p.task),
      state: p.state && shift(p.state),
      standing: p.standing && shift(p.standing),
      intent: p.intent && shift(p.intent),
      remaining: p.remaining.map(shift),
      decisions: p.decisions.map(shift),
      errors: p.errors.map(shift),
      files: p.files.map(shift),
      commands: p.commands.map(shift),
      identifiers: p.identifiers.map(shift),
    });
    out.itemCount += Math.max(1, p.itemCount);
  }
  const all = <K extends 'requests' | 'constraints' | 'commits' | 'closed' | 'testsPassed' | 'decisions' | 'identifiers'>(k: K) => unionDated(shifted.map((p) => p[k]));
  out.requests = all('requests');
  out.constraints = all('constraints');
  out.commits = all('commits');
  out.closed = all('closed');
  // The latest passing run of each test command (a later count supersedes an earlier one).
  const latestRun = new Map<string, Dated>();
  for (const p of shifted) for (const t of p.testsPassed) latestRun.set(t.text.slice(0, t.text.lastIndexOf('` → ') + 1) || t.text, t);
  out.testsPassed = [...latestRun.values()];
  out.decisions = all('decisions');
  out.identifiers = all('identifiers');
  // The state of the work: the newest part's that has one.
  for (const p of shifted) {
    if (p.task) out.task = p.task;
    if (p.state) out.state = p.state;
    if (p.intent) out.intent = p.intent;
    if (p.todos.length > 0) out.todos = p.todos;
    if (p.remaining.length > 0) out.remaining = p.remaining;
    // A newer part without a standing error has none left only if it ran something after it.
    if (p.standing || p.commands.length > 0) out.standing = p.standing;
  }
  // A task closed later is done, not in progress or remaining.
  const closedText = out.closed.map((c) => c.text.toLowerCase()).join('\n');
  const isClosed = (t: string) => {
    const id = /^[\w-]+(?:\.\d+)*/.exec(t)?.[0]?.toLowerCase();
    return id !== undefined && new RegExp(`(^|\\n)${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(closedText);
  };
  if (out.task && isClosed(out.task.text)) out.task = null;
  // A task named by its id alone takes its title from where an earlier part listed it.
  if (out.task && /^[\w-]+(?:\.\d+)*$/.test(out.task.text)) {
    const id = out.task.text;
    const titled = [...shifted.flatMap((p) => p.remaining), ...out.closed].find((r) => r.text.startsWith(`${id} `));
    if (titled) out.task = { ...out.task, text: titled.text };
  }
  out.remaining = out.remaining.filter((r) => !isClosed(r.text) && r.text.split(' ')[0] !== out.task?.text.split(' ')[0]);
  out.files = mergeFiles(shifted.map((p) => p.files));
  out.commands = mergeCommands(shifted.map((p) => p.commands));
  out.errors = mergeErrors(shifted);
  return out;
}

function mergeFiles(lists: readonly FileNote[][]): FileNote[] {
  const byPath = new Map<string, FileNote>();
  for (const list of lists) {
    for (const f of list) {
      const had = byPath.get(f.path);
      if (!had) byPath.set(f.path, { ...f });
      else {
        // Created is a property of the file's first appearance: a later "created" over a file
        // already seen is a rewrite in place.
        had.read += f.read;
        had.edited += f.edited;
        had.written += f.written;
      }
    }
  }
  return [...byPath.values()];
}

function mergeCommands(lists: readonly CommandNote[][]): CommandNote[] {
  const byCommand = new Map<string, CommandNote>();
  for (const list of lists) {
    for (const c of list) {
      const had = byCommand.get(c.command);
      if (!had) byCommand.set(c.command, { ...c });
      else Object.assign(had, { runs: had.runs + c.runs, failures: had.failures + c.failures, result: c.result, ok: c.ok });
    }
  }
  return [...byCommand.values()];
}

/** Errors by message; an open one is resolved by a later part's success on one of its targets. */
function mergeErrors(parts: readonly HandoffNotes[]): ErrorNote[] {
  const byMessage = new Map<string, ErrorNote>();
  parts.forEach((p, i) => {
    for (const e of p.errors) {
      const had = byMessage.get(e.message);
      if (!had) byMessage.set(e.message, { ...e });
      else if (e.resolution) had.resolution = e.resolution;
    }
    for (const e of byMessage.values()) {
      if (e.resolution || i === 0) continue;
      const fix = p.commands.find((c) => c.ok && c.order > e.order && commandKeys(c.command).some((k) => e.keys.includes(k)));
      if (fix) e.resolution = `\`${fix.command}\` → ok`;
    }
  });
  return [...byMessage.values()];
}

/** Leading `cd … &&`, env assignments and `sudo` are not what a command does. */
export function commandCore(command: string): string {
  let c = command.trim();
  for (;;) {
    const next = c.replace(/^cd\s+\S+\s*(?:&&|;)\s*/, '').replace(/^(?:[A-Z_][A-Z0-9_]*=\S*\s+)+/, '').replace(/^sudo\s+/, '');
    if (next === c) return c;
    c = next;
  }
}

/** Path-like arguments of a command: a slash or a file extension. */
export function pathArgs(command: string): string[] {
  const out: string[] = [];
  for (const w of commandCore(command).split(/\s+/).slice(1)) {
    const a = w.replace(/^['"]|['"]$/g, '');
    if (a.startsWith('-') || a.length < 3 || /[|<>&$`(){}]/.test(a)) continue;
    if (/\//.test(a) || /\.[A-Za-z][A-Za-z0-9]{0,5}$/.test(a)) out.push(a);
  }
  return out;
}

/** The program and its subcommand ("git push", "mix test", "npx vitest"). */
export function programKey(command: string): string {
  const words = commandCore(command).split(/\s+/);
  const sub = words[1] && /^[a-z][\w.:-]*$/.test(words[1]) ? ` ${words[1]}` : '';
  return `${words[0]}${sub}`;
}

/**
 * The targets a later success must share with a failed command to resolve it: its path
 * arguments, or (`=program`) a run of the same program on no path, which covers them all
 * (`mix test` after `mix test test/a_test.exs`). A command without paths is its program.
 */
export function errorKeys(command: string): string[] {
  const paths = pathArgs(command);
  const program = programKey(command);
  return paths.length > 0 ? [...paths, `=${program}`] : [program, `=${program}`];
}

/** The targets a successful command covers (see errorKeys). */
export function commandKeys(command: string): string[] {
  const paths = pathArgs(command);
  const program = programKey(command);
  return paths.length > 0 ? [program, ...paths] : [program, `=${program}`];
}
