/**
 * extractFacts: the facts of a span, from the summarizer items every pass builds
 * (shared/model/items.ts: tool_use lines carry their JSON input; tool results are
 * marked, errored ones as `[tool_result error]`). One linear walk over the items:
 *
 * - paths with what was done to them: Read/Write/Edit/MultiEdit/NotebookEdit (and the
 *   OpenHands/SWE-agent editor, Codex apply_patch) inputs → read/created/edited/deleted;
 *   paths in what was said or in tool output → mentioned;
 * - exact commands (shell tool inputs, `$ cmd` lines) with the outcome of their paired
 *   tool result (results pair with calls in order: items carry no tool ids);
 * - errors (failed tool results) and whether a later run of the same command, or the same
 *   tool on the same target, succeeded;
 * - identifiers (symbols, issue/bead ids, URLs) and numbers with units, from what the user
 *   and the agent said (not from file contents or thinking: code would drown the span);
 * - the user's requests (user text that is not a tool result or harness markup);
 * - the todo list as of the span's end (TodoWrite `todos`, Codex `update_plan` `plan`);
 * - decisions: sentences that state a choice with its reason (shared/facts/decisions.ts).
 */
import { keptOn } from '../lazy.js';
import { copyFact, newFact } from './fact.js';
import type { SummarizeItem } from '../strategies/summarizer.js';
import { itemSegmentsOf, turnToItem, type ItemSegment } from '../model/items.js';
import type { Turn } from '../model/turn.js';
import { canonicalCommand, commandOfInput, outcomeOf } from './commands.js';
import {
  BACKTICK_RE,
  ESCAPED_TEXT_RE,
  HARNESS_BLOCK_RE,
  IDENT_RE,
  isNoiseIdentifier,
  ISSUE_ID_RE,
  knownPathsIn,
  NUMBER_WITH_UNIT_RE,
  pathOf,
  pathsIn,
  readsAsPath,
  shortPath,
  SHELL_LINE_RE,
  TAG_RE,
  TIMESTAMP_RE,
  URL_RE,
  UUID_RE,
} from './patterns.js';
import { decisionsIn, REASON_RE } from './decisions.js';
import { commandFixKeys, fileKey } from './errors.js';
import type { Decision, Fact, FactCategory, FactSet, PathAction, TodoStatus } from './types.js';

const REQUEST_CHARS = 240;
const ERROR_CHARS = 160;

/** Text that is not the user asking: a compaction summary, an interruption, a caveat. */
const NOT_A_REQUEST_RE = /^(?:This session is being continued from a previous conversation|\[Request interrupted|Caveat: The messages below|\[image:)/;
/** A user turn the harness wrote whole (a background task's notice), not only wrapped. */
const HARNESS_TURN_RE = /<task-notification>/;
/** A tool result that is the user declining the call: a decision, not an error to fix. */
const REJECTED_RE = /^The user doesn't want to proceed with this tool use/;
/** A bare name said in prose that is as often a library as a file (`highlight.js`, `Node.js`, `d3.js`). */
const LIBRARY_LIKE_RE = /\.js$/i;
/** Commands whose arguments are package names. */
const PACKAGE_COMMAND_RE = /^(?:(?:npm|pnpm|yarn|bun)\s+(?:i|install|add|remove|rm|uninstall|update|upgrade)|pip3?\s+(?:install|uninstall)|cargo\s+(?:add|install)|gem\s+install|go\s+get|brew\s+install)\b/;
/** Tools whose result is a file's content: no paths or errors are read out of it. */
const FILE_READ_TOOL_RE = /^(?:Read|NotebookRead|read_file|view_file|cat)$/i;

/** A call waiting for its result; `fixKeys`: the targets and files whose errors its success fixes (errors.ts). */
type Pending = { kind: 'command'; key: string; fixKeys: string[] } | { kind: 'tool'; source: string; read: boolean; fixKeys: string[] };

export function clip(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** Text with markup, escaped control characters, timestamps and uuids blanked out. */
export function cleanText(text: string): string {
  // Each pattern needs a character most text lacks ('<', '\\', ':' or '-' of a time or date,
  // '-' of a uuid): looked for first, so the regex runs only where it can match.
  let t = text;
  if (t.includes('<')) t = t.replace(TAG_RE, ' ');
  if (t.includes('\\')) t = t.replace(ESCAPED_TEXT_RE, ' ');
  const dash = t.includes('-');
  if (dash || t.includes(':')) t = t.replace(TIMESTAMP_RE, ' ');
  if (dash) t = t.replace(UUID_RE, ' ');
  return t;
}

/** The canonical key of a number with its unit: "1,200 tokens" → "1200 token", "3x" → "3 ×". */
export function numberKey(value: string, unit: string): string {
  let u = unit.toLowerCase();
  if (u === 'x') u = '×';
  else if (u.length > 3 && u.endsWith('s') && !u.endsWith('ss')) u = u.slice(0, -1);
  else if (u.length > 2 && /^[a-z]+s$/.test(u) && !['ms', 'µs', 'ns', 'fps', 'mins', 'secs', 'hours', 'days'].includes(u)) u = u.slice(0, -1);
  return `${value.replace(/,/g, '')} ${u}`;
}

const HAS_DIGIT_RE = /\d/;

const COUNT_UNIT_RE = /^(?:files?|tests?|failures?|errors?|warnings?|calls?|requests?|rows?|records?|commits?|messages?|sessions?|steps?|items?|passes?|runs?|variants?|lines?|turns?|words?|chars?|characters?)$/i;

function stringField(input: Record<string, unknown>, k: string): string | null {
  const v = input[k];
  return typeof v === 'string' ? v : null;
}

class Collector {
  /** Every fact in the order first seen (the order a ledger breaks salience ties by). */
  private readonly order: Fact[] = [];
  /** The same facts by category then key. */
  private readonly byCategory: Record<FactCategory, Map<string, Fact>> = { path: new Map(), command: new Map(), error: new Map(), identifier: new Map(), number: new Map(), request: new Map(), todo: new Map() };
  /** Whether a path is a fact already (tool output adds mentions to those only); one function for every result. */
  private readonly knownPath = (p: string): boolean => this.byCategory.path.has(p);
  /** Errors still open, by each key whose later success fixes them (errorFixKeys). */
  private readonly openErrors = new Map<string, Fact[]>();
  /** Bare `.js` names (`highlight.js`) said in prose: paths only once a tool input names them (`confirmedPaths`) or a path ends with them. */
  private readonly proseBareNames = new Set<string>();
  private readonly confirmedPaths = new Set<string>();
  private readonly pending: Pending[] = [];
  private todos: Array<{ content: string; status: TodoStatus }> | null = null;
  private readonly todoSeen = new Map<string, { first: number; mentions: number }>();
  private readonly decisionList = new Map<string, Decision>();
  item = 0;

  decisions(rawText: string, userNamed: boolean): void {
    // Cheap gate first: most said text holds no reason word at all.
    if (!REASON_RE.test(rawText)) return;
    const text = userNamed ? rawText.replace(HARNESS_BLOCK_RE, ' ') : rawText;
    for (const d of decisionsIn(text.replace(TAG_RE, ' ').replace(ESCAPED_TEXT_RE, ' '))) {
      const key = d.toLowerCase();
      const prev = this.decisionList.get(key);
      if (prev) {
        prev.mentions++;
        prev.lastItem = this.item;
        prev.userNamed ||= userNamed;
      } else this.decisionList.set(key, { key, text: d, firstItem: this.item, lastItem: this.item, mentions: 1, userNamed });
    }
  }

  touch(category: FactCategory, key: string, text: string, userNamed: boolean): Fact {
    const known = this.byCategory[category];
    let f = known.get(key);
    if (!f) {
      f = newFact(category, key, text, 0, this.item, this.item, false);
      known.set(key, f);
      this.order.push(f);
    }
    f.mentions++;
    f.lastItem = this.item;
    if (userNamed) f.userNamed = true;
    return f;
  }

  path(raw: string, action: PathAction, userNamed: boolean, prose = false): void {
    const p = raw.startsWith('./') ? raw.slice(2) : raw;
    if (p.length < 3) return;
    if (!prose) this.confirmedPaths.add(p);
    else if (!p.includes('/') && LIBRARY_LIKE_RE.test(p)) this.proseBareNames.add(p);
    const f = this.touch('path', p, p, userNamed);
    const actions = (f.actions ??= {});
    if (action === 'created' && ((actions.read ?? 0) > 0 || (actions.edited ?? 0) > 0 || (actions.created ?? 0) > 0)) action = 'edited';
    actions[action] = (actions[action] ?? 0) + 1;
  }

  command(raw: string, userNamed: boolean): string | null {
    return this.canonicalCommandFact(this.canonical(raw), userNamed);
  }

  /** canonicalCommand, once per distinct command of the span (agents run the same commands again and again). */
  private readonly canonicalOf = new Map<string, string>();
  canonical(raw: string): string {
    let c = this.canonicalOf.get(raw);
    if (c === undefined) this.canonicalOf.set(raw, (c = canonicalCommand(raw)));
    return c;
  }

  /** A command already in its canonical form (canonicalCommand) as a fact; null when too short to be one. */
  private canonicalCommandFact(key: string, userNamed: boolean): string | null {
    if (key.length < 2) return null;
    this.touch('command', key, key, userNamed);
    return key;
  }

  /** The paths, URLs, identifiers and numbers `referenceOps` found in something said, done to this collector in order (by the user when userNamed). */
  applyReferences(ops: ReferenceOps, userNamed: boolean): void {
    for (let i = 0; i < ops.length; i += 3) {
      const kind = ops[i];
      if (kind === REF_PATH) this.path(ops[i + 1] as string, 'mentioned', userNamed, true);
      else this.touch(kind === REF_NUMBER ? 'number' : 'identifier', ops[i + 1] as string, ops[i + 2] as string, userNamed);
    }
  }

  /** What `requestOf` found in a user's said segment, done to this collector: the request, then the references in it. */
  applyRequest(r: RequestOps | null): void {
    if (!r) return;
    this.touch('request', r.key, r.text, true);
    this.applyReferences(r.references, true);
  }

  toolUse(line: string): void {
    const m = /^\[tool_use ([^\]]+)\] ?(.*)$/.exec(line);
    if (!m) return;
    const name = m[1];
    let input: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(m[2]);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) input = parsed as Record<string, unknown>;
    } catch {
      // A tool input that is not JSON (truncated or malformed): its name is all there is.
    }
    const shell = commandOfInput(name, input);
    if (shell !== null) {
      const canonical = this.canonical(shell);
      const key = this.canonicalCommandFact(canonical, false);
      const deleting = /^\s*(?:git\s+)?rm\s/.test(canonical);
      // Paths of the command itself; the `cd DIR &&` in front says where, not what.
      // An install's bare names are packages (`npm install highlight.js`), not files.
      const paths = PACKAGE_COMMAND_RE.test(canonical) ? pathsIn(canonical).filter((p) => p.includes('/')) : pathsIn(canonical);
      for (const p of paths) this.path(p, deleting ? 'deleted' : 'mentioned', false);
      this.pending.push(key ? { kind: 'command', key, fixKeys: commandFixKeys(canonical, paths) } : { kind: 'tool', source: `${name}:${shell}`, read: false, fixKeys: [] });
      return;
    }
    const filePath = stringField(input, 'file_path') ?? stringField(input, 'notebook_path') ?? stringField(input, 'path');
    let target = filePath ?? '';
    switch (name) {
      case 'Read':
      case 'NotebookRead':
        if (filePath) this.path(filePath, 'read', false);
        break;
      case 'Write':
        if (filePath) this.path(filePath, 'created', false);
        break;
      case 'Edit':
      case 'MultiEdit':
      case 'NotebookEdit':
        if (filePath) this.path(filePath, 'edited', false);
        break;
      case 'TodoWrite':
        this.todoList(input.todos, 'content');
        break;
      case 'update_plan':
        this.todoList(input.plan, 'step');
        break;
      case 'apply_patch': {
        const patch = stringField(input, 'input') ?? stringField(input, 'patch') ?? '';
        for (const pm of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
          this.path(pm[2].trim(), pm[1] === 'Add' ? 'created' : pm[1] === 'Delete' ? 'deleted' : 'edited', false);
          target = pm[2].trim();
        }
        break;
      }
      default: {
        const sub = stringField(input, 'command');
        if (filePath && sub && /editor|edit_file/i.test(name)) {
          // OpenHands / SWE-agent editors: one tool, the action in `command`.
          this.path(filePath, sub === 'view' ? 'read' : sub === 'create' ? 'created' : 'edited', false);
        } else {
          if (filePath && pathOf(filePath, true)) this.path(filePath, 'mentioned', false);
          const url = stringField(input, 'url');
          if (url) this.touch('identifier', url, url, false);
        }
      }
    }
    const read = name === 'Read' || name === 'NotebookRead' || (stringField(input, 'command') === 'view' && /editor/i.test(name)) || FILE_READ_TOOL_RE.test(name);
    this.pending.push({ kind: 'tool', source: `${name}:${target}`, read, fixKeys: target ? [fileKey(target)] : [] });
  }

  private todoList(list: unknown, field: 'content' | 'step'): void {
    if (!Array.isArray(list)) return;
    const todos: Array<{ content: string; status: TodoStatus }> = [];
    for (const t of list) {
      if (!t || typeof t !== 'object') continue;
      const o = t as Record<string, unknown>;
      const content = typeof o[field] === 'string' ? clip(o[field] as string, REQUEST_CHARS) : '';
      if (content.length === 0) continue;
      const status: TodoStatus = o.status === 'completed' || o.status === 'in_progress' ? o.status : 'pending';
      todos.push({ content, status });
      const seen = this.todoSeen.get(content.toLowerCase());
      if (seen) seen.mentions++;
      else this.todoSeen.set(content.toLowerCase(), { first: this.item, mentions: 1 });
    }
    this.todos = todos;
  }

  toolResult(lines: readonly string[], isError: boolean): void {
    const use = this.pending.shift();
    if (use?.kind === 'tool' && use.read) return; // a file's content: not facts of the conversation
    const outcome = outcomeOf(lines, isError);
    // Tool output names paths by the hundred (compiler traces of dependencies, listings):
    // it adds mentions to files the conversation already named, never new facts. Line by
    // line (a token never spans a line break, nor does an escape) rather than joined again.
    for (const l of lines) for (const p of knownPathsIn(l.includes('\\') ? l.replace(ESCAPED_TEXT_RE, ' ') : l, this.knownPath)) this.path(p, 'mentioned', false);
    const source = use ? (use.kind === 'command' ? `command:${use.key}` : use.source) : null;
    if (use?.kind === 'command') {
      const f = this.byCategory.command.get(use.key)!;
      f.ok = outcome.ok;
      f.exitCode = outcome.exitCode;
      if (!outcome.ok) f.failures = (f.failures ?? 0) + 1;
    }
    if (outcome.ok) {
      // A success fixes the errors of its own command or tool target; a command's also those of
      // any earlier run on the same target (`mix test` after `mix test test/a_test.exs`) or file.
      const fixes = source ? [source, ...(use?.kind === 'command' ? use.fixKeys : [])] : [];
      for (const k of fixes) {
        for (const e of this.openErrors.get(k) ?? []) e.fixed = true;
        this.openErrors.delete(k);
      }
      return;
    }
    const line = clip(cleanText(outcome.errorLine ?? 'tool call failed'), ERROR_CHARS);
    if (line.length < 3 || REJECTED_RE.test(line)) return;
    const e = this.touch('error', line.toLowerCase(), line, false);
    e.fixed = false;
    if (source) e.source = source;
    // What a later success fixes it by: its own source, its target and files, and the files the error line names.
    const keys = source ? [source, ...(use?.fixKeys ?? []), ...pathsIn(line).map(fileKey)] : [];
    if (keys.length > 1) e.targets = [...new Set(keys.slice(1))];
    for (const k of keys) {
      const open = this.openErrors.get(k) ?? [];
      if (!open.includes(e)) open.push(e);
      this.openErrors.set(k, open);
    }
  }

  /**
   * The facts of the items so far. `goOn`: the collector will read more items after this
   * (turnFactStream), so the facts this step rewrites (paths: shortened, folded) are copies
   * (fact.ts copyFact) and the collector's own stay as they were; the others are the
   * collector's, which later items go on updating.
   */
  finish(itemCount: number, goOn = false): FactSet {
    const order = goOn ? this.order.map((f) => (f.category === 'path' ? copyFact(f) : f)) : this.order;
    if (this.todos) {
      // Todo facts come last, one per content (a later item of the same content takes the first one's place).
      const todos = new Map<string, Fact>();
      for (const t of this.todos) {
        const seen = this.todoSeen.get(t.content.toLowerCase())!;
        const f = newFact('todo', t.content.toLowerCase(), t.content, seen.mentions, seen.first, this.lastTodoItem, false);
        f.status = t.status;
        const prev = todos.get(f.key);
        if (prev) order[order.indexOf(prev)] = f;
        else order.push(f);
        todos.set(f.key, f);
      }
    }
    shortenPaths(order);
    const facts = foldRelativePaths(this.withoutUnconfirmedNames(order));
    for (const f of facts) f.detail = detailOf(f);
    return { facts, itemCount, decisions: [...this.decisionList.values()].map((d) => ({ ...d })) };
  }

  /**
   * The facts without the bare `.js` names said in prose that nothing confirms as files: a
   * name no tool input named and no path ends with (`highlight.js`, the library) is not a
   * path. (`README.md` said in prose is a file: no library is named so.)
   */
  private withoutUnconfirmedNames(order: Fact[]): Fact[] {
    if (this.proseBareNames.size === 0) return order;
    const unconfirmed = new Set<string>();
    for (const name of this.proseBareNames) if (!this.confirmedPaths.has(name)) unconfirmed.add(name);
    if (unconfirmed.size === 0) return order;
    for (const p of this.confirmedPaths) {
      const slash = p.lastIndexOf('/');
      if (slash >= 0) unconfirmed.delete(p.slice(slash + 1));
    }
    return unconfirmed.size === 0 ? order : order.filter((f) => f.category !== 'path' || !unconfirmed.has(f.key));
  }

  lastTodoItem = 0;
  markTodo(): void {
    this.lastTodoItem = this.item;
  }
}

/**
 * The references of something said, as the collector's operations in order: triples of
 * (REF_IDENTIFIER | REF_PATH | REF_NUMBER, key, text). Pure: a function of the text alone, so a
 * said segment's are found once (`saidMemo`) and done again to every collector that reads it
 * (a replay extracts each turn three times).
 */
type ReferenceOps = ReadonlyArray<number | string>;
const REF_IDENTIFIER = 0;
const REF_PATH = 1;
const REF_NUMBER = 2;

function referenceOps(rawText: string): ReferenceOps {
  const ops: Array<number | string> = [];
  const text = cleanText(rawText);
  // Each pattern below runs only where its required character occurs (a URL's "://", a
  // backtick, an issue id's '#' or '-', a number's digit): most said text has few of them.
  let noUrls = text;
  if (text.includes('://')) {
    for (const m of text.matchAll(URL_RE)) {
      const url = m[0].replace(/[.,;:!?]+$/, '');
      ops.push(REF_IDENTIFIER, url, url);
    }
    noUrls = text.replace(URL_RE, ' ');
  }
  for (const p of pathsIn(noUrls)) ops.push(REF_PATH, p, p);
  let noCode = noUrls;
  if (noUrls.includes('`')) {
    for (const m of noUrls.matchAll(BACKTICK_RE)) {
      const code = m[1].trim();
      if (/\s/.test(code) || pathOf(code) || code.length < 3 || isNoiseIdentifier(code)) continue;
      ops.push(REF_IDENTIFIER, code, code);
    }
    noCode = noUrls.replace(BACKTICK_RE, ' ');
  }
  for (const m of noCode.matchAll(IDENT_RE)) {
    const id = m[0];
    if (isNoiseIdentifier(id) || pathOf(id)) continue;
    ops.push(REF_IDENTIFIER, id, id);
  }
  if (noCode.includes('#') || noCode.includes('-')) {
    for (const m of noCode.matchAll(ISSUE_ID_RE)) {
      const id = m[1] ?? m[2] ?? m[3];
      if (id) ops.push(REF_IDENTIFIER, id, id);
    }
  }
  if (!HAS_DIGIT_RE.test(noCode)) return ops;
  for (const m of noCode.matchAll(NUMBER_WITH_UNIT_RE)) {
    if (m[3]) {
      ops.push(REF_NUMBER, m[3], m[3]);
      continue;
    }
    const value = m[1];
    const unit = m[2];
    // "1 file", "0 errors": a count of one or none says nothing once the sentence is gone.
    if (Number(value.replace(/,/g, '')) <= 1 && COUNT_UNIT_RE.test(unit)) continue;
    ops.push(REF_NUMBER, numberKey(value, unit), m[0].replace(/\s+/g, ' ').trim());
  }
  return ops;
}

/** A user's request in a said segment (its key and text) and the references in it; null when the segment is no request. Pure, like referenceOps. */
interface RequestOps {
  key: string;
  text: string;
  references: ReferenceOps;
}

function requestOf(joined: string): RequestOps | null {
  // Markup needs a '<' and escapes a '\\': text without them skips those patterns.
  const markup = joined.includes('<');
  if (markup && HARNESS_TURN_RE.test(joined)) return null;
  // A slash command's arguments are the user's words; the rest of the harness markup is not.
  const args = markup && joined.includes('<command-args>') ? [...joined.matchAll(/<command-args>([\s\S]*?)<\/command-args>/g)].map((m) => m[1]).join(' ') : '';
  const said = `${markup ? joined.replace(HARNESS_BLOCK_RE, ' ') : joined} ${args}`;
  const untagged = markup ? said.replace(TAG_RE, ' ') : said;
  const text = clip(untagged.includes('\\') ? untagged.replace(ESCAPED_TEXT_RE, ' ') : untagged, REQUEST_CHARS);
  if (text.length < 3 || NOT_A_REQUEST_RE.test(text)) return null;
  return { key: text.toLowerCase(), text, references: referenceOps(said) };
}

/**
 * A said segment's joined text and what it says, found once per segment object (segments are
 * kept per item, items per turn: shared/model/items.ts) and kept on it under a hidden key.
 */
interface SaidMemo {
  said: string;
  references?: ReferenceOps;
  request?: RequestOps | null;
}
const SAID = Symbol('said');

function saidMemo(seg: ItemSegment): SaidMemo {
  return keptOn(seg, SAID, makeSaid);
}
const makeSaid = (seg: ItemSegment): SaidMemo => ({ said: seg.lines.join('\n') });

/**
 * Absolute paths read from their project root on: `shortPath` cuts at a usual root
 * (`lib/`, `test/`...); the project root most of those cuts reveal then trims the other
 * absolute paths under it too (`/home/u/proj/mix.exs` → `mix.exs`).
 */
function shortenPaths(facts: readonly Fact[]): void {
  const roots = new Map<string, number>();
  for (const f of facts) {
    if (f.category !== 'path') continue;
    f.text = shortPath(f.key);
    if (f.text !== f.key) {
      const root = f.key.slice(0, f.key.length - f.text.length - 1);
      roots.set(root, (roots.get(root) ?? 0) + 1);
    }
  }
  let best = '';
  let bestCount = 0;
  for (const [root, n] of roots) if (n > bestCount) [best, bestCount] = [root, n];
  if (best.length < 2) return;
  for (const f of facts) {
    if (f.category !== 'path' || f.text !== f.key || !f.key.startsWith(`${best}/`) || f.key.length <= best.length + 1) continue;
    // `/home/u/proj/priv` stays whole: `priv` alone is a word, not the directory.
    const rest = f.key.slice(best.length + 1);
    if (readsAsPath(rest)) f.text = rest;
  }
}

/**
 * One file named two ways (the tool's absolute `/home/u/proj/lib/foo.ex`, the agent's
 * `lib/foo.ex`) is one fact: a relative path that is the suffix of exactly one absolute
 * path is folded into it (counts summed), and the fact reads as the shorter form.
 */
export function foldRelativePaths(facts: Fact[]): Fact[] {
  const absolute = facts.filter((f) => f.category === 'path' && f.key.startsWith('/'));
  if (absolute.length === 0) return facts;
  // Index absolute paths by their last segment: each relative path checks only its namesakes.
  const byName = new Map<string, Fact[]>();
  for (const f of absolute) {
    const name = f.key.slice(f.key.lastIndexOf('/') + 1);
    const list = byName.get(name) ?? [];
    list.push(f);
    byName.set(name, list);
  }
  const dropped = new Set<Fact>();
  for (const f of facts) {
    if (f.category !== 'path' || f.key.startsWith('/') || f.key.startsWith('~') || f.key.startsWith('..')) continue;
    const name = f.key.slice(f.key.lastIndexOf('/') + 1);
    const matches = (byName.get(name) ?? []).filter((a) => a.key.endsWith(`/${f.key}`));
    if (matches.length !== 1) continue;
    const a = matches[0];
    a.mentions += f.mentions;
    a.firstItem = Math.min(a.firstItem, f.firstItem);
    a.lastItem = Math.max(a.lastItem, f.lastItem);
    a.userNamed ||= f.userNamed;
    const actions = (a.actions ??= {});
    for (const [k, v] of Object.entries(f.actions ?? {}) as Array<[PathAction, number]>) actions[k] = (actions[k] ?? 0) + v;
    if (f.key.includes('/') && f.key.length < a.text.length) a.text = f.key;
    dropped.add(f);
  }
  return dropped.size === 0 ? facts : facts.filter((f) => !dropped.has(f));
}

const times = (n: number) => (n > 1 ? ` ${n}×` : '');

/** The human detail of a fact: "edited 4×", "failed, exit 2", "fixed later", "in_progress". */
export function detailOf(f: Fact): string | undefined {
  switch (f.category) {
    case 'path': {
      const a = f.actions ?? {};
      const parts: string[] = [];
      for (const k of ['created', 'edited', 'deleted', 'read'] as const) if (a[k]) parts.push(`${k}${times(a[k]!)}`);
      if (parts.length === 0 && f.mentions > 1) parts.push(`mentioned${times(f.mentions)}`);
      return parts.length > 0 ? parts.join(', ') : undefined;
    }
    case 'command': {
      if (f.ok === undefined) return f.mentions > 1 ? `mentioned${times(f.mentions)}` : undefined;
      const runs = f.mentions > 1 ? `ran ${f.mentions}×, ` : '';
      if (!f.ok) return `${runs}failed${f.exitCode !== null && f.exitCode !== undefined ? `, exit ${f.exitCode}` : ''}`;
      return `${runs}${f.failures ? `ok after ${f.failures} failure${f.failures > 1 ? 's' : ''}` : 'ok'}`;
    }
    case 'error':
      return f.fixed ? 'fixed later' : f.fixed === false ? 'not fixed' : undefined;
    case 'todo':
      return f.status;
    case 'identifier':
    case 'number':
    case 'request':
      return f.mentions > 1 ? `${f.mentions}×` : undefined;
    default: {
      const _exhaustive: never = f.category;
      return _exhaustive;
    }
  }
}

/** The facts of a span of summarizer items (time order). Linear in the text's length. */
export function extractFacts(items: readonly SummarizeItem[]): FactSet {
  return collectFacts(items.length, (i) => items[i]);
}

/**
 * extractFacts of the turns' summarizer items (`turnsToItems`), each item made only when it is
 * read: a long span (a firing ledger over a whole session) never holds all their texts at once.
 */
export function extractTurnFacts(turns: ReadonlyArray<Pick<Turn, 'role' | 'blocks'>>): FactSet {
  return collectFacts(turns.length, (i) => turnToItem(turns[i]));
}

/**
 * extractTurnFacts for lists of turns that grow: given a list that starts with the turns of
 * the previous call (the same objects, in order), it reads only the new ones and returns
 * exactly extractTurnFacts(turns); any other list is read from its start. What it returns is
 * valid until its next call (reading more turns updates the facts it shares). A replay's
 * ledgers over a rolling strategy read the session's prefix, growing, at each summary and each
 * grouped firing: this reads the session once instead of once per ledger.
 */
export function turnFactStream(): (turns: ReadonlyArray<Pick<Turn, 'role' | 'blocks'>>) => FactSet {
  let collector = new Collector();
  let read: ReadonlyArray<Pick<Turn, 'role' | 'blocks'>> = [];
  return (turns) => {
    let extends_ = turns.length >= read.length;
    for (let i = 0; extends_ && i < read.length; i++) extends_ = turns[i] === read[i];
    if (!extends_) {
      collector = new Collector();
      read = [];
    }
    feed(collector, read.length, turns.length, (i) => turnToItem(turns[i]));
    read = turns.slice();
    return collector.finish(turns.length, true);
  };
}

function collectFacts(count: number, itemAt: (i: number) => SummarizeItem): FactSet {
  const c = new Collector();
  feed(c, 0, count, itemAt);
  return c.finish(count);
}

/** Items [from, to) into a collector. */
function feed(c: Collector, from: number, count: number, itemAt: (i: number) => SummarizeItem): void {
  for (let i = from; i < count; i++) {
    c.item = i;
    const item = itemAt(i);
    const isUserTurn = item.kind === 'turn' && item.role === 'user';
    for (const seg of itemSegmentsOf(item)) {
      switch (seg.kind) {
        case 'said': {
          const m = saidMemo(seg);
          const said = m.said;
          if (isUserTurn) c.applyRequest(m.request === undefined ? (m.request = requestOf(said)) : m.request);
          else c.applyReferences((m.references ??= referenceOps(said)), false);
          c.decisions(said, isUserTurn);
          for (const line of seg.lines) {
            const shell = SHELL_LINE_RE.exec(line);
            if (shell) c.command(shell[1], isUserTurn);
          }
          break;
        }
        case 'tool_use':
          for (const line of seg.lines) {
            c.toolUse(line);
            if (/^\[tool_use (?:TodoWrite|update_plan)\]/.test(line)) c.markTodo();
          }
          break;
        case 'tool_result':
        case 'tool_error':
          c.toolResult(seg.lines, seg.kind === 'tool_error');
          break;
        case 'thinking':
          // Private reasoning: not what was said or done.
          break;
        default: {
          const _exhaustive: never = seg.kind;
          return _exhaustive;
        }
      }
    }
  }
}

