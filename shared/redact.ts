/**
 * Text that came from a summarizer endpoint (an error body, a malformed answer) is stored
 * in run stats and events and shown in the window, the SSE stream and `variants --json`.
 * An endpoint may echo what it was sent, the API key included: every such text goes
 * through redactSecrets before it becomes a message, which replaces anything key-shaped
 * with `[redacted]` and caps the length.
 *
 * A key need not look like one (`hunter2hunter2`): the patterns cannot find it, so the
 * literal values the process holds are removed too: they are the caller's to pass (`held`).
 * The process keeps its registry of them in electron/held-secrets.ts (module state has no place
 * in shared/, whose functions are pure).
 */

/** The longest endpoint text kept (characters, before the "… (N more characters)" note). */
export const MAX_ENDPOINT_TEXT = 500;

export const REDACTED = '[redacted]';

/** `Bearer <token>` / `Basic <token>` (an echoed Authorization header). */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)\s+[^\s"',;}\]]+/gi;
/** OpenAI-style and similar prefixed keys: sk-…, sk-proj-…, rk-…, pk-…, key-… */
const PREFIXED_KEY = /\b(?:sk|rk|pk|key|api)[-_][A-Za-z0-9_-]{6,}/gi;
/** `"api_key": "…"`, `token=…`, `x-api-key: …` and the like: the value goes. */
const NAMED_SECRET = /\b((?:x-)?(?:api[_-]?key|access[_-]?token|auth[_-]?token|token|secret|password|authorization)["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi;
/** Long hex (32+) or base64 / base64url runs (32+) with letters and digits mixed. */
const LONG_TOKEN = /[A-Za-z0-9+/_-]{32,}={0,2}/g;
const HEX_TOKEN = /\b[0-9a-fA-F]{32,}\b/g;

function looksLikeToken(s: string): boolean {
  // A path or a sentence-like run is not a token: a token mixes digits and letters and
  // has no readable path segments.
  if (!/\d/.test(s) || !/[A-Za-z]/.test(s)) return false;
  if (s.includes('/') && s.split('/').every((seg) => seg.length < 24)) return false;
  return true;
}

/** Shorter values are not redacted by value: they would blank ordinary words (the patterns still apply). */
export const MIN_HELD_SECRET = 6;

/**
 * The forms of a key's literal value worth removing (as is, URL-encoded, JSON-escaped), too
 * short ones left out. The process's registry of held keys (electron/held-secrets.ts) keeps them.
 */
export function secretForms(value: string | null | undefined): string[] {
  if (typeof value !== 'string') return [];
  const trimmed = value.trim();
  return [...new Set([trimmed, encodeURIComponent(trimmed), JSON.stringify(trimmed).slice(1, -1)])].filter((v) => v.length >= MIN_HELD_SECRET);
}

/** Removes every one of `values` from `text` (nothing else: the text stays whole). `values` longest first, so a key that contains another goes whole. */
export function redactValues(text: string, values: readonly string[]): string {
  let out = text;
  for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/**
 * `value` with `values` removed from every string inside it (plain objects and arrays;
 * anything else, a typed array or a Date, is left as it is). Copies only what changed: the same
 * value comes back when no string held one, as it does when there are none.
 */
export function redactValuesIn<T>(value: T, values: readonly string[]): T {
  if (values.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactValues(v, values);
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const x = v[i] as unknown;
        if (typeof x !== 'string' && (typeof x !== 'object' || x === null)) continue;
        const w = walk(x);
        if (w !== x) (copy ??= v.slice())[i] = w;
      }
      return copy ?? v;
    }
    if (v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
      let copy: Record<string, unknown> | null = null;
      for (const [k, x] of Object.entries(v)) {
        const w = walk(x);
        if (w !== x) (copy ??= { ...(v as Record<string, unknown>) })[k] = w;
      }
      return copy ?? v;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * Replaces the given literal secret values (`held`: the process's keys, electron/held-secrets.ts)
 * and key-shaped substrings with `[redacted]`, and caps the text at `max` characters.
 */
export function redactSecrets(text: string, max: number = MAX_ENDPOINT_TEXT, held: readonly string[] = []): string {
  let out = redactValues(text, held)
    .replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(NAMED_SECRET, (_m, name: string) => `${name}${REDACTED}`)
    .replace(PREFIXED_KEY, REDACTED)
    .replace(HEX_TOKEN, REDACTED)
    .replace(LONG_TOKEN, (m) => (looksLikeToken(m) ? REDACTED : m));
  if (out.length > max) out = `${out.slice(0, max)}… (${out.length - max} more characters)`;
  return out;
}
