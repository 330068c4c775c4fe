/**
 * The recognisers of facts in text: file paths, URLs, identifiers, numbers with units,
 * shell lines, error lines, and the noise that is none of these (timestamps, request ids,
 * markup). One place per rule: the loss ledger (shared/facts/extract.ts) and the extractive
 * summarizer (shared/summarize/extractive.ts) both read them from here.
 *
 * Everything here is linear: paths are found by splitting on separators and testing each
 * token (a path regex backtracks on every long word of a 20,000-token span).
 */

export const URL_RE = /\bhttps?:\/\/[^\s"'<>)\]}`]+/g;
export const TOKEN_SPLIT_RE = /[\s"'`(),;<>[\]{}|=]+/;
export const FILE_EXT_RE = /\.(?:ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|c|h|cc|cpp|hpp|cs|swift|ex|exs|heex|eex|erl|json|jsonl|yaml|yml|toml|md|txt|sh|sql|html|css|scss|lock|cfg|ini|xml|traj|db|sqlite|csv|env|vue|svelte)$/;
const PATH_SEGMENT_RE = /^[\w.@+-]+$/;

/** Roots where a two-segment path (`src/store`) is a path and not prose ("and/or"). */
export const COMMON_ROOTS = new Set(['src', 'lib', 'test', 'tests', 'spec', 'app', 'apps', 'docs', 'bin', 'cmd', 'pkg', 'packages', 'scripts', 'assets', 'config', 'priv', 'internal', 'electron', 'shared', 'renderer', 'public', 'static', 'include', 'examples', 'deps', 'bench', 'migrations']);

/**
 * A token that names a file or directory: a known extension, an absolute or `~/`, `./`, `../`
 * path of two or more segments, or a relative path that starts at a usual root
 * (`src/store`, `lib/spotter/transcripts`). Slash-separated words are not paths, however
 * many segments they have: "and/or", "active/ended/inactive", a commit message's
 * `thinking/tool-threading/code/subagent`; nor are one-segment absolute tokens (`/span`,
 * `/div` from `</span>`, slash commands like `/init`). A trailing `:line:col` and
 * punctuation are dropped. A bare name with an extension (`highlight.js`) is returned here;
 * whether it names a file is the extractor's call (seen in a tool input, or the name of a
 * path seen there: shared/facts/extract.ts).
 * `loose`: the token sits where only a path goes (a tool input's `path` field): any two or
 * more segments of path characters are a path.
 */
export function pathOf(token: string, loose = false): string | null {
  const t = withoutTrailing(token);
  if (t.length < 4 || t.includes('://') || t.includes('\\')) return null;
  // A bare name needs a name before its extension (`.erl` alone is not a file).
  if (!t.includes('/')) return FILE_EXT_RE.test(t) && PATH_SEGMENT_RE.test(t) && !/^\.?\d/.test(t) && !/^\.[^.]+$/.test(t) ? t : null;
  if (t.startsWith('/dev/')) return null;
  // The segments after a leading `/`, `~/`, `./` or `../`, empty ones skipped: read in one pass
  // (every segment of word characters and .@+-, not all digits; how many; the first).
  const rooted = ROOTED_RE.test(t);
  const from = rooted ? t.indexOf('/') + 1 : 0;
  let segments = 0;
  let first = '';
  let allDigits = true;
  let segStart = from;
  for (let i = from; i <= t.length; i++) {
    const c = i < t.length ? t.charCodeAt(i) : 47;
    if (c === 47) {
      if (i > segStart) {
        if (segments === 0) first = t.slice(segStart, i);
        segments++;
      }
      segStart = i + 1;
      continue;
    }
    if (!isSegmentChar(c)) return null;
    if (c < 48 || c > 57) allDigits = false;
  }
  if (segments === 0 || allDigits) return null;
  if (FILE_EXT_RE.test(t)) return t;
  if (segments >= 2 && (rooted || loose || COMMON_ROOTS.has(first))) return t;
  return null;
}

/** `/`, `~/`, `./` or `../` at the start of a path. */
const ROOTED_RE = /^(?:~|\.{1,2})?\//;

/** A character of PATH_SEGMENT_RE: a word character or . @ + -. */
function isSegmentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 64 || c === 43 || c === 45;
}

/**
 * A token without a trailing `:line:col` (`(?::\d+)+$`), then without trailing . , : ! ?
 * (`[.,:!?]+$`): the two replaces pathOf did, as two backward scans.
 */
function withoutTrailing(token: string): string {
  let end = token.length;
  for (;;) {
    let k = end;
    while (k > 0 && token.charCodeAt(k - 1) >= 48 && token.charCodeAt(k - 1) <= 57) k--;
    if (k < end && k > 0 && token.charCodeAt(k - 1) === 58) end = k - 1;
    else break;
  }
  for (;;) {
    const c = token.charCodeAt(end - 1);
    if (c === 46 || c === 44 || c === 58 || c === 33 || c === 63) end--;
    else break;
  }
  return end === token.length ? token : token.slice(0, end);
}

/**
 * How an absolute path reads in a ledger line: from its first usual root on
 * (`/home/u/proj/lib/foo.ex` → `lib/foo.ex`); the full path when it has none. A cut that
 * would leave the root alone (`/home/u/proj/lib` → `lib`) is not made: a bare `lib` is a
 * word of any text, not the directory.
 */
export function shortPath(p: string): string {
  if (!p.startsWith('/')) return p;
  const segs = p.replace(/\/+$/, '').split('/');
  for (let i = 3; i < segs.length - 1; i++) if (COMMON_ROOTS.has(segs[i])) return segs.slice(i).join('/');
  return p;
}

/** Whether a path's short form still reads as a path: it has a `/` between two names, or a file extension. */
export function readsAsPath(text: string): boolean {
  const t = text.replace(/\/+$/, '');
  return (t.includes('/') && !t.startsWith('/')) || t.indexOf('/', 1) > 0 || FILE_EXT_RE.test(t);
}

/**
 * Whether a UTF-16 code unit is one TOKEN_SPLIT_RE splits on: JavaScript's `\s` (the
 * WhiteSpace and LineTerminator sets) or one of "'`(),;<>[]{}|=.
 */
function isTokenSeparator(c: number): boolean {
  return c < 128 ? ASCII_SEPARATOR[c] === 1 : isJsWhiteSpace(c);
}

/** Whether a UTF-16 code unit is JavaScript's `\s` (the WhiteSpace and LineTerminator sets). */
export function isJsWhiteSpace(c: number): boolean {
  if (c < 160) return c === 32 || (c >= 9 && c <= 13);
  return c === 160 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The ASCII separators of TOKEN_SPLIT_RE as a table (1 = splits): \t \n \v \f \r, space and "'`(),;<>[]{}|=. */
const ASCII_SEPARATOR = new Uint8Array(128);
for (const ch of '\t\n\v\f\r "\'`(),;<>[]{}|=') ASCII_SEPARATOR[ch.charCodeAt(0)] = 1;

/**
 * The tokens of `text.split(TOKEN_SPLIT_RE)` that may name a path (at least 4 characters, with
 * a `/` or a `.`), in order, found by one scan of the characters and handed over as indices
 * [start, end): tool output is mostly words and numbers, and splitting it whole allocated
 * every one of them.
 */
function scanPathTokens(text: string, visit: (start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && isTokenSeparator(text.charCodeAt(i))) i++;
    const start = i;
    let pathChar = false;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 47 || c === 46) pathChar = true;
      else if (isTokenSeparator(c)) break;
    }
    if (pathChar && i - start >= 4) visit(start, i);
  }
}

/** Every path in a text, in order (URLs removed first; duplicates kept: the caller counts mentions). */
export function pathsIn(text: string): string[] {
  const out: string[] = [];
  // A URL holds "://"; most texts have none and skip the replace.
  const scanned = text.includes('://') ? text.replace(URL_RE, ' ') : text;
  scanPathTokens(scanned, (start, end) => {
    const p = pathOf(scanned.slice(start, end));
    if (p) out.push(p);
  });
  return out;
}

/**
 * The tokens of a text that may be paths already known (`known(p)`), trailing `:line:col`
 * and punctuation dropped, without pathOf's checks: tool output can run to tens of
 * thousands of tokens and only lookups are needed there.
 */
export function knownPathsIn(text: string, known: (p: string) => boolean): string[] {
  const out: string[] = [];
  scanPathTokens(text, (start, tokenEnd) => {
    let end = tokenEnd;
    for (;;) {
      const ch = end > start ? text.charCodeAt(end - 1) : NaN;
      // digits after a colon (`:12:7`), or trailing . , : ! ?
      if (ch >= 48 && ch <= 57) {
        let k = end - 1;
        while (k > start && text.charCodeAt(k - 1) >= 48 && text.charCodeAt(k - 1) <= 57) k--;
        if (k > start && text.charCodeAt(k - 1) === 58) {
          end = k - 1;
          continue;
        }
        break;
      }
      if (ch === 46 || ch === 44 || ch === 58 || ch === 33 || ch === 63) {
        end--;
        continue;
      }
      break;
    }
    // A leading `./` dropped (once).
    const from = end - start >= 2 && text.charCodeAt(start) === 46 && text.charCodeAt(start + 1) === 47 ? start + 2 : start;
    const p = text.slice(from, end);
    if (known(p)) out.push(p);
  });
  return out;
}

export const BACKTICK_RE = /`([^`\n]{2,80})`/g;
/**
 * camelCase, PascalCase with 2+ humps, snake_case, SCREAMING_CASE, call() names, and names
 * with their namespace kept whole: `AshComputer.LiveView`, `Spotter.Transcripts.Session`,
 * `Phoenix.LiveView.JS.push()`, `std::vec::Vec`, `Foo::Bar`, `this.fooBar`, `os.path.join()`.
 * A dotted chain is one identifier when it starts with a capital (a module path) or when a
 * later segment is itself an identifier (camel or snake case, or a call); plain words joined
 * by dots (`e.g`, `i.e`) are not. A name that is a file (`config.json`) is the caller's to
 * drop (pathOf).
 */
export const IDENT_RE =
  /(?<![\w.:$])(?:[A-Z][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?|[a-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+(?:\(\))?|[a-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\.|::)(?:[a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+|[A-Za-z_]\w*\(\))|[a-z]+[A-Z][A-Za-z0-9]*(?:\(\))?|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*(?:\(\))?|[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+(?:\(\))?|[A-Za-z_]\w*\(\))(?![\w$]|(?:\.|::)[A-Za-z_])/g;
/** Issue ids: `#123`, `PROJ-42`, bead ids `bd-a1b2`. */
export const ISSUE_ID_RE = /(?:^|[\s(])(#\d{2,6})\b|\b([A-Z][A-Z0-9]{1,9}-\d{1,6})\b|\b(bd-[a-z0-9]{3,8})\b/g;

/** The extractive summarizer's loose number pattern (a number, optionally a unit). */
export const NUMBER_RE = /\b\d+(?:[.,:]\d+)*(?:\s?(?:%|ms|s|kb|mb|gb|tokens?|turns?|lines?|bytes?))?\b/gi;

/**
 * A number WITH a unit: the ledger's numbers. A bare number (a counter, a line number, a
 * small integer) carries no meaning once its sentence is gone, so it is not a fact.
 * The unit is group 2; `$12.50` is group 3.
 */
export const NUMBER_WITH_UNIT_RE = /(?<![\w.:/-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s?(%|×|x\b|ms\b|µs\b|ns\b|s\b|secs?\b|seconds?\b|mins?\b|minutes?\b|h\b|hours?\b|days?\b|[kKmMgGtT]i?[bB]\b|bytes?\b|[kKmM]\b|tokens?\b|turns?\b|lines?\b|files?\b|tests?\b|failures?\b|errors?\b|warnings?\b|calls?\b|requests?\b|chars?\b|characters?\b|words?\b|rows?\b|records?\b|commits?\b|px\b|fps\b|USD\b|dollars?\b|cents?\b|messages?\b|sessions?\b|steps?\b|items?\b|passes?\b|runs?\b|variants?\b)|(\$\d+(?:\.\d+)?)/g;

/** Noise that is never a fact. */
export const TIMESTAMP_RE = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b/g;
export const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Provider ids: request, message, tool-call, completion ids (`req_…`, `msg_…`, `toolu_…`, `call_…`). */
export const REQUEST_ID_RE = /^(?:req|msg|toolu|call|chatcmpl|resp|run|file|org|sk|srvtoolu|evt|batch)[_-][A-Za-z0-9_-]{6,}$/;

/** An identifier candidate that is noise: a provider id, a uuid, a long hex/base64 run, a tag name. */
export function isNoiseIdentifier(s: string): boolean {
  if (REQUEST_ID_RE.test(s)) return true;
  if (/^[0-9a-f-]{16,}$/i.test(s) && /\d/.test(s)) return true;
  if (/^[A-Za-z0-9+/=_-]{24,}$/.test(s) && /\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s)) return true;
  if (/^\/?[a-z]+$/.test(s)) return true; // `/div`, `span`: markup and plain words are not symbols
  if (/^\d/.test(s)) return true;
  return false;
}

/** Markup a harness wraps around user turns; what is inside is not the user's request. */
export const HARNESS_BLOCK_RE = /<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-name|command-message|command-args|command-stdout|user-prompt-submit-hook|bash-stdout|bash-stderr|bash-input|task-notification|ide_opened_file|ide_selection|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;
/** Any HTML/XML-looking tag. */
export const TAG_RE = /<\/?[A-Za-z][\w-]*(?:\s[^<>]*)?\/?>/g;

export const SHELL_LINE_RE = /^\s*(?:\$|>)\s+(\S.*)$/;
export const COMMAND_JSON_RE = /"(?:command|cmd)":"((?:[^"\\]|\\.){1,300})"/g;

/** Lines that are errors wherever they appear (compiler, runtime, test runner, git). */
export const STRICT_ERROR_RE = /^(?:\w+(?:Error|Exception)\b|error(?:\[\w+\])?:|fatal:|panic:|Traceback \(most recent call last\)|FAIL\b|E\s{2,}\S|npm ERR!|\*\* \(\w+(?:\.\w+)*Error\))/;
export const ERROR_RE = /\b(error|exception|traceback|failed|failure|fatal|panic|segmentation fault|cannot|can't find|not found|denied)\b|^\s*E\s{2,}/i;

/** Escaped control characters that leaked into text as literal `\n`, `\t`, `\"`. */
export const ESCAPED_TEXT_RE = /\\[nrt"]/g;

/** Words that carry no content (for "share of content words" matching). */
export const STOPWORDS = new Set(
  'the a an and or but if then else when while for from into onto with without this that these those there here what which who whom whose where why how all any both each few more most other some such only own same than too very can will just should would could now also about above after again against below between during before under over once off out very your yours you our ours we they them their theirs its it is are was were be been being have has had having do does did doing not no nor please make sure lets let use using need want like get got into file files code'.split(' '),
);

/** The content words of a text (lowercase, ≥ 3 letters, not stopwords), in order, duplicates kept. */
export function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[a-z][a-z0-9_]{2,}/g)) if (!STOPWORDS.has(m[0])) out.push(m[0]);
  return out;
}
