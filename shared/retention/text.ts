/**
 * The text-level retention score: the concrete strings of a compacted span — file paths as
 * written, dotted and namespaced identifiers whole, numbers with their units, exact commands —
 * searched as text in what the model receives after the compaction. It stands beside the fact
 * ledger (shared/facts) as a check that the ledger cannot give: it shares no code with the
 * ledger's extractor or with any summarizer (a test walks this folder's imports), so a
 * summarizer that selects from the ledger's own facts is not graded by them. No forgiveness
 * beyond what "as written" allows: a path is found as written or, when absolute, from the
 * span's project directory on; an identifier as a whole word; a number with its unit; a
 * command with its whitespace collapsed.
 *
 * What is read of the span: what the user and the agent said, and the tool inputs that name a
 * file or run a command. Not tool output (listings and traces name files by the hundred), not
 * file contents written by a tool, not private reasoning.
 */
import type { ContentBlock, Turn } from '../model/turn.js';

export type TextStringKind = 'path' | 'identifier' | 'number' | 'command';
export const TEXT_STRING_KINDS: readonly TextStringKind[] = ['path', 'identifier', 'number', 'command'];

export interface KindScore {
  kept: number;
  total: number;
}

/** The score of one span (or several summed): per kind, and the first strings lost in span order. */
export interface TextRetention {
  kept: number;
  total: number;
  byKind: Record<TextStringKind, KindScore>;
  /** Up to TEXT_LOST_TOP lost strings, in the order the span first wrote them. */
  lost: string[];
}

export const TEXT_LOST_TOP = 12;

export interface SpanString {
  kind: TextStringKind;
  /** As written in the span. */
  text: string;
}

/** Tool input fields that hold a path. */
const PATH_FIELDS = ['file_path', 'path', 'notebook_path', 'filename', 'target_file'];
/** Tool input fields that hold a shell command. */
const COMMAND_FIELDS = ['command', 'cmd'];
const SHELL_TOOL_RE = /bash|shell|exec|terminal|run_command|run_in_terminal|cmd/i;

const EXTENSION_RE = /\.(?:[a-z][a-z0-9]{0,5}|[A-Z]{1,4})$/;
const CODE_EXTENSIONS: readonly string[] = 'ts tsx js jsx mjs cjs py rs go java kt rb php c h cc cpp hpp cs swift ex exs heex eex erl json jsonl yaml yml toml md txt sh sql html css scss lock cfg ini xml db sqlite csv env vue svelte pony lua zig nix dart scala clj hs ml'.split(' ');
const SPLIT_RE = /[\s"'`(),;<>[\]{}|=*]+/;
const TRAILING_RE = /(?::\d+)+$|[.,:!?]+$/;

/** A token that is a file path as written: a known extension, or an absolute, `~/`, `./` path of two or more segments. */
function pathToken(raw: string): string | null {
  let t = raw;
  for (let i = 0; i < 3; i++) t = t.replace(TRAILING_RE, '');
  if (t.length < 4 || t.includes('://') || t.includes('\\') || !/^[\w./~@+-]+$/.test(t)) return null;
  const ext = EXTENSION_RE.exec(t);
  const name = t.slice(t.lastIndexOf('/') + 1);
  if (ext && CODE_EXTENSIONS.includes(ext[0].slice(1).toLowerCase()) && /[A-Za-z_]/.test(name.slice(0, name.length - ext[0].length))) return t;
  if (/^(?:~|\.{1,2})?\/[\w.@+-]+\/[\w.@+-]/.test(t) && !t.startsWith('/dev/')) return t.replace(/\/+$/, '');
  return null;
}

/**
 * Identifiers as written, namespaces kept: `AshComputer.LiveView`, `Phoenix.ConnTest.build_conn()`,
 * `std::vec::Vec`, `os.path.join()`, `fooBar`, `FooBar`, `foo_bar`, `FOO_BAR`, `foo()`.
 * A chain of lowercase words (`e.g`) is none.
 */
const IDENTIFIER_RE =
  /(?<![\w.:$/-])(?:[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_][\w]*)+(?:\(\))?|[a-z][a-z0-9]*[A-Z]\w*(?:\(\))?|[A-Z][a-z0-9]+[A-Z]\w*(?:\(\))?|[A-Za-z][A-Za-z0-9]*_\w+(?:\(\))?|[A-Za-z_]\w*\(\))(?![\w$/-]|(?:\.|::)[A-Za-z_])/g;

function isIdentifier(s: string): boolean {
  if (s.length < 4) return false;
  if (s.includes('::')) return true;
  if (s.includes('.')) {
    const segs = s.replace(/\(\)$/, '').split('.');
    // A module path (capitalized first segment) or a chain with a code-like segment.
    return /^[A-Z]/.test(segs[0]) || segs.some((x) => /[a-z][A-Z]|_/.test(x)) || s.endsWith('()');
  }
  return true;
}

/** A number with its unit as written (`120 ms`, `3.5s`, `42%`, `1,200 tokens`, `$0.75`). */
const NUMBER_RE =
  /(?<![\w.:/-])(?:\$\d+(?:\.\d+)?|(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?(?:%|×|ms\b|µs\b|s\b|sec(?:ond)?s?\b|min(?:ute)?s?\b|h\b|hours?\b|days?\b|[KMGT]i?B\b|[kmg]b\b|bytes?\b|tokens?\b|turns?\b|lines?\b|files?\b|tests?\b|failures?\b|errors?\b|calls?\b|requests?\b|rows?\b|commits?\b|px\b|x\b|k\b|M\b))/g;

/**
 * A command as written: the first line, a leading `cd DIR &&` dropped (where it ran, not what),
 * whitespace collapsed, at most 120 characters cut at a word. Nothing else is normalized: the
 * ledger's canonical form (`mix test` for `mix test 2>&1 | tail -5`) is the ledger's, and a
 * summary that writes only that has not kept the command as the agent ran it.
 */
export function commandText(raw: string): string {
  let c = raw.split('\n')[0].trim();
  for (let i = 0; i < 3; i++) c = c.replace(/^cd\s+\S+\s*&&\s*/, '');
  c = c.replace(/\s+/g, ' ').trim();
  if (c.length > 120) c = c.slice(0, 120).replace(/\s+\S*$/, '');
  return /^cd(?:\s|$)/.test(c) && !c.includes('&&') ? '' : c;
}

/** Text with markup tags, escaped newlines and harness wrappers taken out. */
function said(text: string): string {
  return text
    .replace(/<(system-reminder|local-command-stdout|local-command-stderr|command-stdout|bash-stdout|bash-stderr|task-notification)>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<\/?[A-Za-z][\w-]*(?:\s[^<>]*)?\/?>/g, ' ')
    .replace(/\\[nrt"]/g, ' ');
}

class StringCollector {
  readonly seen = new Map<string, SpanString>();
  add(kind: TextStringKind, text: string): void {
    const key = `${kind}\u0000${text}`;
    if (text.length >= 2 && !this.seen.has(key)) this.seen.set(key, { kind, text });
  }
  said(raw: string): void {
    const text = said(raw);
    const urlFree = text.replace(/\bhttps?:\/\/\S+/g, ' ');
    for (const tok of urlFree.split(SPLIT_RE)) {
      if (!tok.includes('/') && !tok.includes('.')) continue;
      const p = pathToken(tok);
      // A bare `.js` name in prose is as often a library (`highlight.js`): not a file as written.
      if (p && (p.includes('/') || !p.endsWith('.js'))) this.add('path', p);
    }
    for (const m of urlFree.matchAll(IDENTIFIER_RE)) if (isIdentifier(m[0]) && !pathToken(m[0])) this.add('identifier', m[0]);
    for (const m of urlFree.matchAll(NUMBER_RE)) {
      // "1 file", "0 errors": a count of one or none is no figure.
      if (/^[01]\s?[a-z]/i.test(m[0]) && !/^[01]\s?(?:ms|s|h|%|[kmg]b)\b/i.test(m[0])) continue;
      this.add('number', m[0]);
    }
  }
  toolUse(b: Extract<ContentBlock, { type: 'tool_use' }>): void {
    const input = b.input && typeof b.input === 'object' && !Array.isArray(b.input) ? (b.input as Record<string, unknown>) : {};
    for (const f of PATH_FIELDS) {
      const v = input[f];
      if (typeof v === 'string' && v.length >= 3 && !v.includes('\n')) this.add('path', v.replace(/^\.\//, ''));
    }
    if (SHELL_TOOL_RE.test(b.name)) {
      for (const f of COMMAND_FIELDS) {
        const v = input[f];
        const raw = typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x === 'string') ? shellOfArgv(v as string[]) : null;
        if (raw === null) continue;
        const c = commandText(raw);
        if (c.length >= 2) this.add('command', c);
        // The files the command names, as written.
        for (const tok of c.split(SPLIT_RE)) {
          const p = pathToken(tok);
          if (p && p.includes('/')) this.add('path', p.replace(/^\.\//, ''));
        }
      }
    }
  }
}

/** `['bash', '-lc', 'npm test']` → `npm test`; any other argv joined. */
function shellOfArgv(argv: string[]): string {
  return argv.length >= 3 && /^(?:ba|z)?sh$/.test(argv[0]) && /^-\w*c$/.test(argv[1]) ? argv.slice(2).join(' ') : argv.join(' ');
}

type SpanTurn = Pick<Turn, 'role' | 'blocks'>;

/** The strings of one turn, in the order written. */
function turnStrings(t: SpanTurn): SpanString[] {
  const c = new StringCollector();
  for (const b of t.blocks) {
    if (b.type === 'text' && (t.role === 'user' || t.role === 'assistant')) c.said(b.text);
    else if (b.type === 'tool_use') c.toolUse(b);
  }
  return [...c.seen.values()];
}

/**
 * The concrete strings of a span of turns, each once, in the order first written. `memo`: each
 * turn's strings kept by the caller (a replay scores the same turns in many spans).
 */
export function spanStrings(turns: readonly SpanTurn[], memo?: WeakMap<SpanTurn, SpanString[]>): SpanString[] {
  const seen = new Map<string, SpanString>();
  for (const t of turns) {
    let list = memo?.get(t);
    if (!list) {
      list = turnStrings(t);
      memo?.set(t, list);
    }
    for (const x of list) {
      const key = `${x.kind}\u0000${x.text}`;
      if (!seen.has(key)) seen.set(key, x);
    }
  }
  return [...seen.values()];
}

/**
 * What a model receives, as one text: every block of every message (text, tool calls with
 * their JSON input, tool results, summaries), the way a reader of the request would see it.
 */
export function messagesText(messages: ReadonlyArray<{ blocks: readonly ContentBlock[] }>): string {
  const parts: string[] = [];
  for (const m of messages) {
    for (const b of m.blocks) {
      switch (b.type) {
        case 'text':
          parts.push(b.text);
          break;
        case 'thinking':
          parts.push(b.thinking);
          break;
        case 'tool_use':
          parts.push(`${b.name} ${JSON.stringify(b.input)}`);
          // A command or path inside JSON is escaped (`\"`, `\n`): its plain form too.
          for (const v of Object.values((b.input ?? {}) as Record<string, unknown>)) if (typeof v === 'string') parts.push(v);
          break;
        case 'tool_result':
          parts.push(b.content);
          break;
        case 'image':
          break;
        default: {
          const _exhaustive: never = b;
          return _exhaustive;
        }
      }
    }
  }
  return parts.join('\n');
}

/** Directories a project keeps its files under: the project root is the directory above the first of them. */
const SOURCE_DIRS: readonly string[] = ['src', 'lib', 'test', 'tests', 'spec', 'app', 'docs', 'bin', 'cmd', 'pkg', 'packages', 'scripts', 'assets', 'config', 'priv', 'internal', 'public', 'include', 'examples', 'electron', 'shared', 'renderer', 'bench', 'migrations', 'js', 'css'];

/**
 * The span's project directory: of its absolute paths, the directory above their first usual
 * source directory (`/home/u/proj` for `/home/u/proj/lib/foo.ex`), the most frequent one; null
 * when none has one. A path under it is also found as written from there on (`lib/foo.ex`).
 */
function projectRoot(strings: readonly SpanString[]): string | null {
  const counts = new Map<string, number>();
  for (const s of strings) {
    if (s.kind !== 'path' || !s.text.startsWith('/')) continue;
    const segs = s.text.split('/');
    for (let i = 2; i < segs.length - 1; i++) {
      if (!SOURCE_DIRS.includes(segs[i])) continue;
      const root = segs.slice(0, i).join('/');
      counts.set(root, (counts.get(root) ?? 0) + 1);
      break;
    }
  }
  let best: string | null = null;
  let n = 0;
  for (const [root, c] of counts) if (c > n) [best, n] = [root, c];
  return best;
}

const isWordChar = (c: string | undefined) => c !== undefined && /[\w$]/.test(c);

function includesWhole(hay: string, needle: string): boolean {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    if (!isWordChar(hay[at - 1]) && !isWordChar(hay[at + needle.length])) return true;
  }
  return false;
}

/** What a visible text is searched as: raw, whitespace-collapsed, lowercased-collapsed. */
export interface VisibleText {
  raw: string;
  collapsed: string;
  lower: string;
}

export function visibleTextOf(text: string): VisibleText {
  const collapsed = text.replace(/\s+/g, ' ');
  return { raw: text, collapsed, lower: collapsed.toLowerCase() };
}

/** Whether one string of the span is found, as text, in the visible text. */
export function foundAsText(s: SpanString, v: VisibleText, root: string | null = null): boolean {
  switch (s.kind) {
    case 'path':
      if (v.raw.includes(s.text)) return true;
      return root !== null && s.text.startsWith(`${root}/`) && v.raw.includes(s.text.slice(root.length + 1));
    case 'identifier':
      return includesWhole(v.raw, s.text);
    case 'number': {
      const m = /^(\$?[\d,.]+)\s?(.*)$/.exec(s.text.toLowerCase())!;
      if (!m[2]) return v.lower.includes(m[1]);
      return v.lower.includes(`${m[1]}${m[2]}`) || v.lower.includes(`${m[1]} ${m[2]}`);
    }
    case 'command':
      return v.collapsed.includes(s.text);
    default: {
      const _exhaustive: never = s.kind;
      return _exhaustive;
    }
  }
}

export function emptyTextRetention(): TextRetention {
  const byKind = {} as Record<TextStringKind, KindScore>;
  for (const k of TEXT_STRING_KINDS) byKind[k] = { kept: 0, total: 0 };
  return { kept: 0, total: 0, byKind, lost: [] };
}

/** The score of a span's strings against a visible text. */
export function textRetentionOf(strings: readonly SpanString[], visible: string | VisibleText): TextRetention {
  const v = typeof visible === 'string' ? visibleTextOf(visible) : visible;
  const root = projectRoot(strings);
  const out = emptyTextRetention();
  for (const s of strings) {
    const r = out.byKind[s.kind];
    r.total++;
    out.total++;
    if (foundAsText(s, v, root)) {
      r.kept++;
      out.kept++;
    } else if (out.lost.length < TEXT_LOST_TOP) out.lost.push(s.text);
  }
  return out;
}

/** The text-level score of turns against what the model receives: spanStrings then textRetentionOf. */
export function textRetention(turns: readonly SpanTurn[], visible: string, memo?: WeakMap<SpanTurn, SpanString[]>): TextRetention {
  return textRetentionOf(spanStrings(turns, memo), visible);
}

/** Scores summed (a variant over its summaries, a run over its firings); null when any is missing (not measured then). */
export function sumTextRetention(list: ReadonlyArray<TextRetention | null | undefined>): TextRetention | null {
  if (list.length === 0 || list.some((x) => !x)) return null;
  const out = emptyTextRetention();
  for (const r of list as TextRetention[]) {
    out.kept += r.kept;
    out.total += r.total;
    for (const k of TEXT_STRING_KINDS) {
      out.byKind[k].kept += r.byKind[k]?.kept ?? 0;
      out.byKind[k].total += r.byKind[k]?.total ?? 0;
    }
    for (const l of r.lost) if (out.lost.length < TEXT_LOST_TOP) out.lost.push(l);
  }
  return out;
}

/** "text 23/101 (22.8%)" — the label every view prints beside the fact score; "text —" when not measured. */
export function textRetentionLabel(r: TextRetention | null | undefined): string {
  if (!r) return 'text —';
  if (r.total === 0) return 'text 0/0';
  return `text ${r.kept}/${r.total} (${((100 * r.kept) / r.total).toFixed(1)}%)`;
}

/** The percentage kept (two decimals), null when nothing was measured. */
export function textRetentionPct(r: TextRetention | null | undefined): number | null {
  return r && r.total > 0 ? Math.round((r.kept / r.total) * 10000) / 100 : null;
}
