/**
 * Text that came from a summarizer endpoint (an error body, a malformed answer) is stored
 * in run stats and events and shown in the window, the SSE stream and `variants --json`.
 * An endpoint may echo what it was sent, the API key included: every such text goes
 * through redactSecrets before it becomes a message, which replaces anything key-shaped
 * with `[redacted]` and caps the length.
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

/** Replaces key-shaped substrings with `[redacted]` and caps the text at `max` characters. */
export function redactSecrets(text: string, max: number = MAX_ENDPOINT_TEXT): string {
  let out = text
    .replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(NAMED_SECRET, (_m, name: string) => `${name}${REDACTED}`)
    .replace(PREFIXED_KEY, REDACTED)
    .replace(HEX_TOKEN, REDACTED)
    .replace(LONG_TOKEN, (m) => (looksLikeToken(m) ? REDACTED : m));
  if (out.length > max) out = `${out.slice(0, max)}… (${out.length - max} more characters)`;
  return out;
}
