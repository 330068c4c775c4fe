/**
 * Which Claude Code subagent files belong to which session file. Three layouts:
 * - newest (2.1.x): `<dir>/<session>/subagents/agent-<id>.jsonl` (+ `.meta.json`);
 * - the same flattened into one folder (our fixtures): `<session>__subagents__agent-<id>.jsonl`;
 * - 2.0.x: sibling `agent-<id>.jsonl` files in the project folder, linked by the
 *   `sessionId` inside their records.
 * Subagent files passed explicitly next to their session file attach to it; with
 * discovery on, a session file also picks up its subagent files from disk.
 */
import fs from 'node:fs';
import path from 'node:path';

const AGENT_FILE = /(^|__)agent-[A-Za-z0-9_-]+\.jsonl$/;
const FLAT_MARK = '__subagents__';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isAgentFile(filePath: string): boolean {
  const base = path.basename(filePath);
  return AGENT_FILE.test(base) || (path.basename(path.dirname(filePath)) === 'subagents' && base.endsWith('.jsonl'));
}

/** The agent id a subagent file's name carries (`agent-<id>.jsonl`). */
export function agentIdFromName(filePath: string): string | null {
  return /agent-([A-Za-z0-9_-]+)\.jsonl$/.exec(path.basename(filePath))?.[1] ?? null;
}

/** The session id a session file's name carries (its stem, or the part after the last `__`). */
function sessionIdOfName(filePath: string): string | null {
  const stem = path.basename(filePath, '.jsonl');
  const m = UUID.exec(stem);
  return m && (m.index === 0 || stem.slice(m.index - 2, m.index) === '__') ? m[0] : null;
}

/** First line of a file (bounded read), for the sessionId of 2.0.x sibling agent files. */
function firstLine(filePath: string, maxBytes = 64 * 1024): string {
  const fd = fs.openSync(filePath, 'r');
  try {
    const buf = Buffer.alloc(maxBytes);
    const n = fs.readSync(fd, buf, 0, maxBytes, 0);
    const text = buf.toString('utf8', 0, n);
    const nl = text.indexOf('\n');
    return nl === -1 ? text : text.slice(0, nl);
  } catch {
    return '';
  } finally {
    fs.closeSync(fd);
  }
}

function sessionIdInside(agentPath: string, lineOf: (p: string) => string = firstLine): string | null {
  return /"sessionId"\s*:\s*"([^"]+)"/.exec(lineOf(agentPath))?.[1] ?? null;
}

/**
 * The session file a subagent file belongs to, among `candidates` (absolute paths, or the
 * relative names of files handed over in memory). `lineOf` reads a candidate's first line
 * (from disk by default; from the text for in-memory files).
 */
export function parentAmong(agentPath: string, candidates: readonly string[], lineOf: (p: string) => string = firstLine): string | null {
  const dir = path.dirname(agentPath);
  const base = path.basename(agentPath);
  let expected: string | null = null;
  if (path.basename(dir) === 'subagents') expected = `${path.dirname(dir)}.jsonl`;
  else if (base.includes(`${FLAT_MARK}agent-`)) expected = path.join(dir, `${base.slice(0, base.indexOf(FLAT_MARK))}.jsonl`);
  if (expected) return candidates.includes(expected) ? expected : null;
  const sessionId = sessionIdInside(agentPath, lineOf);
  if (!sessionId) return null;
  return candidates.find((c) => c !== agentPath && path.dirname(c) === dir && sessionIdOfName(c) === sessionId && !isAgentFile(c)) ?? null;
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Subagent files on disk for a session file, in a stable (name) order. */
export function discoverSubagentFiles(sessionPath: string): string[] {
  if (!sessionPath.endsWith('.jsonl') || isAgentFile(sessionPath)) return [];
  const dir = path.dirname(sessionPath);
  const stem = path.basename(sessionPath, '.jsonl');
  const found: string[] = [];
  const nested = path.join(dir, stem, 'subagents');
  for (const f of listDir(nested)) if (f.startsWith('agent-') && f.endsWith('.jsonl')) found.push(path.join(nested, f));
  const entries = listDir(dir);
  const flatPrefix = `${stem}${FLAT_MARK}agent-`;
  for (const f of entries) if (f.startsWith(flatPrefix) && f.endsWith('.jsonl')) found.push(path.join(dir, f));
  const sessionId = sessionIdOfName(sessionPath);
  if (sessionId) {
    for (const f of entries) {
      if (!AGENT_FILE.test(f) || f.includes(FLAT_MARK)) continue;
      const p = path.join(dir, f);
      if (sessionIdInside(p) === sessionId) found.push(p);
    }
  }
  return found;
}

/** The `.meta.json` sidecar path of a subagent file. */
export function agentMetaPath(agentPath: string): string {
  return agentPath.replace(/\.jsonl$/, '.meta.json');
}

/** A `.meta.json` sidecar's text as { agentType, description, ... }, or null. */
export function parseAgentMeta(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A transcript by its name: JSONL / JSON / .traj, not a subagent `.meta.json` sidecar. */
export function isTranscriptName(name: string): boolean {
  return /\.(jsonl|ndjson|json|traj)$/i.test(name) && !/\.meta\.json$/i.test(name);
}

/** Every transcript file under a folder, recursively, in a stable (path) order; dot-folders and node_modules skipped. */
export function transcriptsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...transcriptsUnder(p));
    else if (entry.isFile() && isTranscriptName(entry.name)) out.push(p);
  }
  return out;
}

/** `<agent>.meta.json` beside a subagent file on disk: { agentType, description, ... } or null. */
export function readAgentMeta(agentPath: string): Record<string, unknown> | null {
  const metaPath = agentMetaPath(agentPath);
  try {
    const value: unknown = JSON.parse(fs.readFileSync(metaPath, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
