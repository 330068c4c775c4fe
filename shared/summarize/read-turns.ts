/**
 * The extractive summarizer's own reading of a run of turns (summarizer items, the canonical
 * text of shared/model/items.ts) into hand-off notes (notes.ts). One pass over the items'
 * segments; a tool call is paired with the next result in order.
 *
 * - Requests: what the user wrote (harness markup, tool results, interruptions left out).
 * - Constraints: concrete values from the user's words and from task specs the agent read
 *   (a tracker's `show` output, a plan file, a todo list): `code` values, numbers with units,
 *   environment variable names, quoted labels.
 * - Done: commits (`[branch hash] subject` in a commit's output), tasks closed (a tracker's
 *   close command, a completed todo), test runs that passed, with their counts.
 * - In progress: the task last claimed (`… update ID --status in_progress`, an in-progress
 *   todo) and not closed since; its state (files edited since the last commit, whether a
 *   check ran after the last edit and how it ended); the last error still standing.
 * - Next step: the agent's last stated intent, the open todos, the subtasks seen and not closed.
 * - Decisions: sentences of the agent that give a reason (because, so that, to avoid, instead
 *   of, rather than, since, doesn't support…).
 * - Errors: the message line of a failed command or tool, and what resolved it: a later
 *   success on one of its targets (notes.ts errorKeys), with the files edited in between.
 * - Files (full paths as written; created only when the tool says so or the file is new to the
 *   span, so a rewrite in place is "modified"), commands whole, namespaced identifiers whole.
 */
import { itemSegmentsOf } from '../model/items.js';
import type { SummarizeItem } from '../strategies/summarizer.js';
import { commandKeys, emptyNotes, errorKeys, type CommandNote, type Dated, type ErrorNote, type FileNote, type HandoffNotes, type TodoStatus } from './notes.js';

const HARNESS_BLOCK_RE = /<(system-reminder|task-notification|environment_context|local-command-stdout|local-command-stderr|command-name|command-message|command-args|user_instructions)>[\s\S]*?<\/\1>/g;
const NOT_A_REQUEST_RE = /^(?:\[Request interrupted|Caveat:|This session is being continued|<)/;
const REASON_RE = /\b(because|so that|to avoid|instead of|rather than|since (?!then|the (?:last|first))|in order to|otherwise|(?:does|do|is|are)n[’']t (?:support|allow|work)|cannot|can[’']t|requires?)\b/i;
const INTENT_RE = /^(?:now|next|then|first|finally)\b|\b(?:let me|let's|i['’]ll|i will|i need to|we need to|next step)\b/i;
const TEST_CMD_RE = /\b(?:mix test|pytest|vitest|jest|(?:npm|yarn|pnpm|bun)(?: run)? test|cargo test|go test|rspec|phpunit|dotnet test|ctest|tox|nox)\b/;
const CHECK_RE = /\b(?:test|tests|vitest|jest|pytest|tsc|compile|build|lint|eslint|credo|check|cargo|go (?:test|build|vet)|make|mix (?:test|compile))\b/;
const TEST_COUNTS_RE = /\b\d+ (?:doctests?|tests?|examples?|passed|failed|failures?|errors?|skipped|pending)\b(?:,? (?:and )?\d+ (?:doctests?|tests?|examples?|passed|failed|failures?|errors?|skipped|pending)\b)*(?: in [\d.]+ ?m?s)?/;
const STRONG_ERROR_RE = /\bAssertion\b.*\bfailed\b|(?:^|\s)(?:error|fatal|Error|ERROR)(?:\[\w+\])?:|\*\* \(|\b\w*(?:Error|Exception)\b|^FAIL\b|^E {2,}|Traceback|panicked|denied|refused|not found|No such file|undefined (?:function|variable|method|reference)/;
const WEAK_ERROR_RE = /\b(?:error|failed|failure|cannot|can't|unable|invalid|missing|not (?:allowed|supported)|ignored by)\b/i;
const NOISE_LINE_RE = /^(?:Exit code -?\d+|Compiling\b|Checking\b|Running\b|Generated\b|Getting\b|==>|Finished\b|Analysis took|warning:|\s*[│└┌├─~^]+)/;
const COMMIT_RE = /^\[([\w./-]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$/;
const TASK_LINE_RE = /^(?:[→←↑]\s*)?([○◐●✓])\s+([a-z][\w-]*-[a-z0-9]+(?:\.\d+)*)(?:\s+·\s+|:\s+)(.+?)(?:\s+\[.*)?(?:\s+●\s*P\d)?$/;
const CLAIM_RE = /\b(?:bd|br|beads)\s+(?:update|start)\s+([a-z][\w-]*-[a-z0-9]+(?:\.\d+)*)\b[^|;&]*--status[= ]in_progress/;
const CLOSE_CMD_RE = /\b(?:bd|br|beads)\s+close\s+((?:[a-z][\w-]*-[a-z0-9]+(?:\.\d+)*\s*)+)/;
const CLOSED_OUT_RE = /^✓ Closed ([a-z][\w-]*-[a-z0-9]+(?:\.\d+)*)/;
const CODE_SPAN_RE = /`([^`\n]{1,80})`/g;
const UNIT_NUMBER_RE = /\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds?|minutes?|min|h|hours?|days?|KB|MB|GB|kB|tokens?|lines?|px|rem|em|%|chars?|characters?|items?|rows?|requests?)\b/g;
const ENV_VAR_RE = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b/g;
const QUOTED_LABEL_RE = /(?:labeled|labelled|named|exactly|copy|text|message|title)[:\s]+["“]([^"”\n]{2,80})["”]/gi;
const NAMESPACED_RE = /\b[A-Z][A-Za-z0-9_]*(?:(?:\.|::)[A-Z][A-Za-z0-9_]*)+\b|\b[a-z_][a-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+\b/g;
/** A user declining a tool call is not an error to fix. */
const REJECTED_RE = /doesn[’']t want to proceed|tool use was rejected/;
const TRACKER_ID_RE = /\b[a-z][a-z0-9]*-[a-z0-9]{2,}(?:\.\d+)+\b/g;

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n).replace(/\s+\S*$/, '')} …`);
const plain = (s: string) => s.replace(/\*\*|__/g, '').replace(/\s+/g, ' ').trim();

interface PendingCall {
  name: string;
  input: unknown;
  at: number;
}

/** A tool_use line: `[tool_use NAME] JSON` (items.ts). */
function parseToolUse(line: string): PendingCall | null {
  const close = line.indexOf('] ');
  if (close < 0) return null;
  const name = line.slice('[tool_use '.length, close);
  const raw = line.slice(close + 2);
  let input: unknown = raw;
  try {
    input = JSON.parse(raw);
  } catch {
    // A tool_use input is JSON (stableJson); anything else is kept as text.
  }
  return { name, input, at: 0 };
}

const field = (input: unknown, ...keys: string[]): unknown => {
  if (!input || typeof input !== 'object') return undefined;
  for (const k of keys) if ((input as Record<string, unknown>)[k] !== undefined) return (input as Record<string, unknown>)[k];
  return undefined;
};

/** A shell call's command as written: a string, or the last element of `["bash", "-lc", cmd]`. */
function commandOf(input: unknown): string | null {
  const c = field(input, 'command', 'cmd');
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.length > 0 && typeof c[c.length - 1] === 'string') return c.length >= 3 && /^(?:ba|z)?sh$/.test(String(c[0])) ? String(c[c.length - 1]) : c.join(' ');
  return null;
}

/**
 * A command whole, on one line, quoting intact: a here-document's body (a commit message)
 * becomes its first line and "…" between its delimiters, so the quotes around it still close.
 */
export function commandLine(command: string): string {
  const heredoc = command.replace(/<<-?\s*(['"]?)(\w+)\1\n([\s\S]*?)\n\s*\2(?=\s|\)|$)/g, (_m, q: string, tag: string, body: string) => {
    const first = body.split('\n').find((l) => l.trim().length > 0)?.trim() ?? '';
    return `<<${q}${tag}${q} ${first} … ${tag}`;
  });
  return heredoc.replace(/\s*\n\s*/g, ' ↵ ').replace(/[ \t]+/g, ' ').trim();
}

/** A tool result's text: Codex wraps it as JSON with `output` and `metadata.exit_code`. */
function resultOf(lines: readonly string[]): { text: string[]; exit: number | null } {
  const first = lines[0] ?? '';
  if (first.startsWith('{"output"')) {
    try {
      const j = JSON.parse(lines.join('\n')) as { output?: string; metadata?: { exit_code?: number } };
      return { text: (j.output ?? '').split('\n').map((l) => l.trim()).filter(Boolean), exit: j.metadata?.exit_code ?? null };
    } catch {
      // not JSON after all
    }
  }
  const m = /^Exit code (-?\d+)/.exec(first);
  return { text: [...lines], exit: m ? Number(m[1]) : null };
}

/** The line of a failed result that says what went wrong. */
export function errorMessageLine(lines: readonly string[]): string {
  const candidates = lines.filter((l) => !NOISE_LINE_RE.test(l));
  const line = candidates.find((l) => STRONG_ERROR_RE.test(l)) ?? candidates.find((l) => WEAK_ERROR_RE.test(l)) ?? candidates[0] ?? lines[0] ?? 'failed';
  return clip(line.replace(/^E\s{2,}/, '').replace(/\s+/g, ' ').trim(), 220);
}

/** Files a patch (Codex apply_patch) adds, updates or deletes. */
function patchFiles(text: string): Array<{ path: string; op: 'add' | 'update' | 'delete' }> {
  const out: Array<{ path: string; op: 'add' | 'update' | 'delete' }> = [];
  for (const m of text.matchAll(/\*\*\* (Add|Update|Delete) File: (\S+)/g)) out.push({ path: m[2], op: m[1].toLowerCase() as 'add' | 'update' | 'delete' });
  return out;
}

/** The notes of a run of turn items, in time order. Linear in the text's length. */
export function readTurns(items: readonly SummarizeItem[]): HandoffNotes {
  const notes = emptyNotes(items.length);
  const files = new Map<string, FileNote>();
  const commands = new Map<string, CommandNote>();
  const identifiers = new Map<string, Dated>();
  const decisions = new Map<string, Dated>();
  const constraints = new Map<string, Dated>();
  const titles = new Map<string, { title: string; status: string; order: number }>();
  const closed = new Map<string, Dated>();
  const pending: PendingCall[] = [];
  /** Files edited since the last commit, and whether a check ran after the last edit. */
  let dirty = new Map<string, number>();
  let lastCommit: string | null = null;
  let lastCheck: { command: string; ok: boolean; result: string; order: number } | null = null;
  let editedSinceCheck = false;
  let task: { id: string; order: number } | null = null;
  const editsSince: Array<{ path: string; order: number }> = [];
  /** The files a task's spec says it changes ("Output files:"), by task. */
  const specFiles: Array<{ task: string; path: string; op: string }> = [];

  const identifier = (name: string, order: number) => {
    const had = identifiers.get(name);
    if (had) had.mentions = (had.mentions ?? 1) + 1;
    else identifiers.set(name, { text: name, order, mentions: 1 });
  };
  const scanNames = (text: string, order: number) => {
    for (const m of text.slice(0, 20_000).matchAll(NAMESPACED_RE)) identifier(m[0], order);
  };
  const constraint = (text: string, order: number) => {
    const k = text.toLowerCase();
    const had = constraints.get(k);
    if (had) had.mentions = (had.mentions ?? 1) + 1;
    else constraints.set(k, { text, order, mentions: 1 });
  };
  /** Concrete values of a spec or a request: `code`, numbers with units, env vars, quoted labels. */
  const specValues = (text: string): string[] => {
    const vals = new Set<string>();
    for (const m of text.matchAll(CODE_SPAN_RE)) if (m[1].trim().length >= 4 || /\d/.test(m[1])) vals.add(`\`${m[1].trim()}\``);
    for (const m of text.matchAll(QUOTED_LABEL_RE)) vals.add(`"${m[1]}"`);
    for (const m of text.matchAll(UNIT_NUMBER_RE)) vals.add(m[0]);
    for (const m of text.matchAll(ENV_VAR_RE)) vals.add(m[0]);
    return [...vals];
  };
  const file = (path: string, order: number): FileNote => {
    let f = files.get(path);
    if (!f) files.set(path, (f = { path, created: false, read: 0, edited: 0, written: 0, order }));
    return f;
  };
  const edited = (path: string, order: number) => {
    dirty.set(path, (dirty.get(path) ?? 0) + 1);
    editedSinceCheck = true;
    editsSince.push({ path, order });
  };
  const fail = (message: string, source: string, keys: string[], order: number) => {
    notes.errors.push({ message, source, resolution: null, keys, order });
  };
  /** A success on these targets resolves the open errors that share one (with the edits made since). */
  const succeed = (keys: readonly string[], how: string, order: number) => {
    for (const e of notes.errors) {
      if (e.resolution || !e.keys.some((k) => keys.includes(k))) continue;
      const between = [...new Set(editsSince.filter((x) => x.order >= e.order && x.order <= order).map((x) => x.path))].slice(0, 2);
      e.resolution = between.length > 0 ? `after editing ${between.join(', ')}, ${how}` : how;
    }
  };

  const onShell = (command: string, ok: boolean, out: string[], exit: number | null, order: number) => {
    const line = commandLine(command);
    const isTest = TEST_CMD_RE.test(command);
    const counts = isTest ? [...out].reverse().map((l) => TEST_COUNTS_RE.exec(l)?.[0]).find(Boolean) : undefined;
    const failedCount = counts ? /\b([1-9]\d*) (?:failed|failures?|errors?)\b/.test(counts) : false;
    const passed = ok && !failedCount;
    const message = passed ? null : errorMessageLine(out.length > 0 ? out : ['failed']);
    const result = passed ? (counts ?? 'ok') : `failed${exit !== null && exit !== 0 ? ` (exit ${exit})` : ''}: ${counts && message && !message.includes(counts) ? `${counts}; ` : ''}${message}`;
    const c = commands.get(line);
    if (c) Object.assign(c, { runs: c.runs + 1, failures: c.failures + (passed ? 0 : 1), result, ok: passed });
    else commands.set(line, { command: line, runs: 1, failures: passed ? 0 : 1, result, ok: passed, order });
    const isCheck = CHECK_RE.test(command);
    if (isCheck) {
      lastCheck = { command: line, ok: passed, result, order };
      editedSinceCheck = false;
    }
    if (passed && counts) {
      // The latest passing run of each test command, with its counts.
      const prefix = `\`${line}\` → `;
      notes.testsPassed = notes.testsPassed.filter((t) => !t.text.startsWith(prefix));
      notes.testsPassed.push({ text: `${prefix}${counts}`, order });
    }
    for (const l of out) {
      const cm = COMMIT_RE.exec(l);
      if (cm && ok) {
        notes.commits.push({ text: `${cm[2]} ${cm[3]}`, order });
        lastCommit = cm[2];
        dirty = new Map();
      }
      const cl = CLOSED_OUT_RE.exec(l);
      if (cl && ok) closed.set(cl[1], { text: cl[1], order });
      const t = TASK_LINE_RE.exec(l);
      if (t) titles.set(t[2], { title: clip(plain(t[3]), 100), status: t[1], order });
    }
    if (ok) {
      const claim = CLAIM_RE.exec(command);
      if (claim) task = { id: claim[1], order };
      const close = CLOSE_CMD_RE.exec(command);
      if (close) for (const id of close[1].trim().split(/\s+/)) closed.set(id, { text: id, order });
      // A tracker's `show` output is a task spec: its concrete values are constraints.
      if (/\b(?:bd|br|beads|gh issue|jira)\s+(?:show|view)\b/.test(command)) {
        let current: string | null = null;
        let outputs = false;
        for (const l of out) {
          const t = TASK_LINE_RE.exec(l);
          if (t && !/^[→←↑]/.test(l)) current = t[2];
          if (/^[A-Z][\w ]+:$/.test(l)) outputs = /^Output files:$/.test(l);
          const listed = outputs && current ? /^- `([^`]+)` \((new|modify|modified|delete)\)/.exec(l) : null;
          if (listed) specFiles.push({ task: current!, path: listed[1], op: listed[2] });
          if (!current || /^(?:[→←↑]|Owner:|Created:)/.test(l)) continue;
          for (const v of specValues(l)) constraint(`${current}: ${v}`, order);
        }
      }
    }
    if (passed) succeed(commandKeys(command), `\`${line}\` → ok`, order);
    else if (!REJECTED_RE.test(out.join(' '))) fail(message!, `\`${line}\``, errorKeys(command), order);
    scanNames(command, order);
  };

  const onResult = (call: PendingCall, lines: readonly string[], errored: boolean, order: number) => {
    const name = call.name.toLowerCase();
    const input = call.input;
    const { text, exit } = resultOf(lines);
    const ok = !errored && (exit === null || exit === 0);
    const command = commandOf(input);
    if (command !== null && /^(?:bash|shell|exec_command|run_command|execute|terminal|local_shell|run)$/.test(name)) return onShell(command, ok, text, exit, order);
    if (name === 'apply_patch' || (typeof input === 'string' && input.includes('*** Begin Patch'))) {
      const patch = typeof input === 'string' ? input : String(field(input, 'input', 'patch') ?? '');
      for (const p of patchFiles(patch)) {
        const f = file(p.path, order);
        if (p.op === 'add' && f.read + f.edited + f.written === 0) f.created = true;
        if (p.op === 'add') f.written++;
        else f.edited++;
        if (ok) edited(p.path, order);
      }
      return;
    }
    if (name === 'todowrite') {
      const todos = field(input, 'todos');
      if (Array.isArray(todos)) {
        notes.todos = todos
          .filter((t): t is { content: string; status: TodoStatus } => typeof t?.content === 'string')
          .map((t) => ({ text: clip(plain(t.content), 160), status: (['pending', 'in_progress', 'completed'].includes(t.status) ? t.status : 'pending') as TodoStatus }));
        const now = notes.todos.find((t) => t.status === 'in_progress');
        if (now) task = { id: now.text, order };
        for (const t of notes.todos) for (const v of specValues(t.text)) constraint(`todo: ${v}`, order);
      }
      return;
    }
    const path = field(input, 'file_path', 'path', 'notebook_path');
    if (typeof path !== 'string' || path.length === 0) return;
    if (!ok) {
      if (!REJECTED_RE.test(text.join(' '))) fail(errorMessageLine(text), `${call.name} ${path}`, [path, `=${call.name}`], order);
      return;
    }
    const f = file(path, order);
    if (/^(?:read|view|cat|open)$/.test(name)) {
      f.read++;
      // A plan or spec file the agent read: its concrete values are constraints.
      if (/(?:plan|spec|todo|task|design|requirements?)[\w-]*\.md$/i.test(path)) for (const v of specValues(text.join('\n')).slice(0, 40)) constraint(`${path.split('/').pop()}: ${v}`, order);
    } else if (/^(?:write|create|create_file)$/.test(name)) {
      const said = text.join(' ');
      // The tool says whether it created the file; without a word, a file new to the span is.
      if (/\bcreated\b/i.test(said) || (!/\b(?:updated|overwr)/i.test(said) && f.read + f.edited + f.written === 0)) f.created = f.read + f.edited + f.written === 0;
      f.written++;
      edited(path, order);
    } else if (/edit|replace|insert|notebook/.test(name)) {
      f.edited++;
      edited(path, order);
    } else {
      f.read++;
      return;
    }
    succeed([path], `${call.name} ${path}`, order);
  };

  items.forEach((item, order) => {
    const saidLines: string[] = [];
    for (const seg of itemSegmentsOf(item)) {
      switch (seg.kind) {
        case 'tool_use': {
          const call = parseToolUse(seg.lines[0] ?? '');
          if (call) pending.push({ ...call, at: order });
          break;
        }
        case 'tool_result':
        case 'tool_error': {
          const call = pending.shift();
          if (call) onResult(call, seg.lines, seg.kind === 'tool_error', order);
          break;
        }
        case 'thinking':
          if (item.role === 'assistant') readSaid(seg.lines, order, false);
          break;
        case 'said':
          saidLines.push(...seg.lines);
          break;
        default: {
          const _exhaustive: never = seg.kind;
          return _exhaustive;
        }
      }
    }
    if (saidLines.length === 0) return;
    if (item.role === 'user') {
      const joined = saidLines.join('\n');
      const text = plain(joined.replace(HARNESS_BLOCK_RE, ' '));
      // A background task's notification is the harness talking, with its own instruction after it.
      if (text.length > 0 && !NOT_A_REQUEST_RE.test(text) && !joined.includes('<task-notification>')) {
        notes.requests.push({ text: clip(text, 400), order });
        for (const v of specValues(saidLines.join('\n'))) constraint(`user: ${v}`, order);
        scanNames(text, order);
      }
    } else if (item.role === 'assistant') readSaid(saidLines, order, true);
  });

  /** The agent's words: decisions with a reason; its last stated intent (said, not thought). */
  function readSaid(lines: readonly string[], order: number, said: boolean): void {
    for (const line of lines) {
      scanNames(line, order);
      for (const sentence of plain(line.replace(/\[\/?thinking\]/g, '')).split(/(?<=[.!?])\s+(?=[A-Z`(])/)) {
        const s = sentence.replace(/`/g, '').trim();
        if (s.length < 16 || s.endsWith('?')) continue;
        if (REASON_RE.test(s) && s.length <= 400) {
          const k = s.toLowerCase();
          const had = decisions.get(k);
          if (had) had.mentions = (had.mentions ?? 1) + 1;
          else decisions.set(k, { text: clip(s, 300), order, mentions: said ? 2 : 1 });
        }
        // A sentence giving a reason is a decision; as an intent it must say what comes next.
        if (said && INTENT_RE.test(s) && s.length <= 300 && (!REASON_RE.test(s) || /^(?:now|next|then)\b/i.test(s))) notes.intent = { text: s, order };
      }
    }
  }

  notes.files = [...files.values()];
  notes.commands = [...commands.values()];
  notes.identifiers = [...identifiers.values()];
  notes.decisions = [...decisions.values()];
  notes.constraints = [...constraints.values()];
  notes.closed = [...closed.values()].map((c) => ({ text: titles.has(c.text) ? `${c.text} ${titles.get(c.text)!.title}` : c.text, order: c.order }));
  for (const t of notes.todos) if (t.status === 'completed') notes.closed.push({ text: `todo: ${t.text}`, order: items.length - 1 });
  const current = task as { id: string; order: number } | null;
  if (current && !closed.has(current.id)) notes.task = { text: titles.has(current.id) ? `${current.id} ${titles.get(current.id)!.title}` : current.id, order: current.order };
  // Remaining: tasks seen and not closed; of the current task's epic when it is a subtask (ID.N).
  const family = current && current.id.includes('.') ? current.id.split('.')[0] : null;
  for (const [id, t] of titles) {
    if (closed.has(id) || t.status === '✓' || id === current?.id || id === family) continue;
    if (family && id.split('.')[0] !== family) continue;
    notes.remaining.push({ text: `${id} ${t.title}`, order: t.order });
  }
  notes.remaining.sort((a, b) => (a.text < b.text ? -1 : 1));
  // What the current task's spec says it changes and the span has not changed since the claim.
  if (current && notes.task) {
    const touched = editsSince.filter((e) => e.order >= current.order).map((e) => e.path);
    const todo = specFiles.filter((f) => f.task === current.id && !touched.some((p) => p === f.path || p.endsWith(`/${f.path}`)));
    if (todo.length > 0) notes.remaining.unshift({ text: `${current.id}: ${todo.map((f) => `${f.path} (${f.op})`).join(', ')} not changed yet`, order: items.length - 1 });
  }
  for (const id of new Set([...(current ? [current.id] : [])])) for (const m of id.matchAll(TRACKER_ID_RE)) identifier(m[0], current!.order);
  // The state of the work in progress.
  const check = lastCheck as { command: string; ok: boolean; result: string; order: number } | null;
  if (dirty.size > 0 || notes.task) {
    const parts: string[] = [];
    if (dirty.size > 0) parts.push(`uncommitted: ${[...dirty].map(([p, n]) => (n > 1 ? `${p} (${n} edits)` : p)).join(', ')} changed since ${lastCommit ? `commit ${lastCommit}` : 'the start of the span'}`);
    else if (lastCommit) parts.push(`nothing uncommitted since commit ${lastCommit}`);
    if (editedSinceCheck) parts.push('edited, not compiled or tested since the last edit');
    else if (check) parts.push(`last check \`${check.command}\` → ${check.ok ? 'ok' : check.result}`);
    notes.state = { text: parts.join('; '), order: items.length - 1 };
  }
  const open = notes.errors.filter((e) => !e.resolution);
  const last = open[open.length - 1] as ErrorNote | undefined;
  if (last && (!check || check.order <= last.order || !check.ok)) notes.standing = { text: `${last.message} (${last.source})`, order: last.order };
  return notes;
}
