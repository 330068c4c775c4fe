/**
 * The docs stay true to the tree: every repository path README.md and docs/*.md name (in
 * backticks or as a link) exists, no doc cites the workshop folder beside the repository
 * (`../shared`) or a measurements file that is not in the repository, and no file of the
 * repository refers to the tracker's numbers instead of naming the design or the behaviour.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
/** Folders that are built, installed or generated, never part of a clone. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'out', 'release', 'test-results', 'playwright-report', 'native', '.vite', '.tsbuild']);
/** Top-level folders of the repository: a backticked token starting with one of them is a path. */
const REPO_DIRS = ['shared', 'electron', 'renderer', 'test', 'bench', 'scripts', 'docs', 'resources', 'bin', '.ci'];
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|ya?ml|sh|html|css)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(path.relative(ROOT, p).split(path.sep).join('/'));
  }
  return out;
}

/** Every file of the working tree, as repository-relative paths, and every folder holding one. */
function repoEntries(): Set<string> {
  const entries = new Set<string>();
  for (const f of walk(ROOT)) {
    entries.add(f);
    for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) entries.add(d);
  }
  return entries;
}

/** `a/{b,c}.ts` → `a/b.ts`, `a/c.ts` (one level of braces is all the docs use). */
function expandBraces(p: string): string[] {
  const m = /\{([^{}]*)\}/.exec(p);
  if (!m) return [p];
  return m[1].split(',').flatMap((alt) => expandBraces(p.slice(0, m.index) + alt + p.slice(m.index + m[0].length)));
}

/** A path with placeholders (`<format>`, `*`) as a pattern over whole repository paths. */
function patternOf(p: string): RegExp | null {
  if (!/[<*]/.test(p)) return null;
  const re = p
    .split(/(<[^>]*>|\*)/)
    .map((part) => (part === '*' || part.startsWith('<') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`);
}

/** A bare file name (no folder): it must be the name of some file of the repository. */
const BARE_FILE = /^[\w*<][\w.*<>-]*\.(ts|tsx|mts|cts|js|mjs|cjs|json|md|ya?ml|css|html|sh)$/;

export interface NamedPath { line: number; path: string; resolved: string; bare?: boolean }

/** Whether each line lies inside a fenced block (quoted output and examples: data, not references). */
function fencedLines(lines: string[]): boolean[] {
  let fence: string | null = null;
  return lines.map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null) {
      if (m) fence = m[1];
      return fence !== null;
    }
    if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
    return true;
  });
}

/**
 * The repository paths a Markdown document names: links (relative to the document) and
 * backticked tokens that start with a top-level folder of the repository (relative to the root).
 */
export function namedPaths(docRel: string, text: string): NamedPath[] {
  const out: NamedPath[] = [];
  const docDir = path.posix.dirname(docRel);
  const lines = text.split('\n');
  const fenced = fencedLines(lines);
  lines.forEach((lineText, i) => {
    if (fenced[i]) return;
    for (const m of lineText.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].split('#')[0];
      if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      out.push({ line: i + 1, path: target, resolved: path.posix.normalize(path.posix.join(docDir, target)) });
    }
    for (const m of lineText.matchAll(/`([^`]+)`/g)) {
      const tokens = m[1].trim().split(/\s+/);
      for (const raw of tokens) {
        const token = raw.replace(/^[("']+|[)"',;:.]+$/g, '').replace(/^\.\//, '');
        if (!token.includes('/')) {
          // Only a span that is the bare name alone: `x.json: not valid JSON` quotes a message.
          if (tokens.length === 1 && BARE_FILE.test(token)) out.push({ line: i + 1, path: token, resolved: token, bare: true });
          continue;
        }
        if (!REPO_DIRS.includes(token.split('/')[0])) continue;
        out.push({ line: i + 1, path: token, resolved: path.posix.normalize(token) });
      }
    }
  });
  return out;
}

/** What is wrong with the paths one document names: each one that names nothing in the tree. */
export function missingPaths(docRel: string, text: string, entries: Set<string>): string[] {
  const all = [...entries];
  const names = new Set(all.map((e) => path.posix.basename(e)));
  const problems: string[] = [];
  for (const named of namedPaths(docRel, text)) {
    for (const candidate of expandBraces(named.resolved.replace(/\/$/, ''))) {
      const pattern = patternOf(candidate);
      const pool = named.bare ? [...names] : all;
      const found = pattern ? pool.some((e) => pattern.test(e)) : (named.bare ? names : entries).has(candidate);
      if (!found) problems.push(`${docRel}:${named.line}: \`${named.path}\` names no file or folder of the repository`);
    }
  }
  return problems;
}

/** Citations of the workshop folder beside the repository, or of a measurements file the repository lacks. */
export function outsideCitations(docRel: string, text: string, entries: Set<string>): string[] {
  const problems: string[] = [];
  const docDir = path.posix.dirname(docRel);
  text.split('\n').forEach((lineText, i) => {
    for (const m of lineText.matchAll(/((?:\.\.\/)+shared(?:\/[\w./-]*)?)/g)) {
      const resolved = path.posix.normalize(path.posix.join(docDir, m[1])).replace(/\/$/, '');
      if (resolved.startsWith('..') || !entries.has(resolved)) problems.push(`${docRel}:${i + 1}: cites \`${m[1]}\`, which is not in the repository`);
    }
    if (/MEASUREMENTS\.md/.test(lineText) && ![...entries].some((e) => e.endsWith('MEASUREMENTS.md'))) {
      problems.push(`${docRel}:${i + 1}: cites MEASUREMENTS.md, which is not in the repository`);
    }
  });
  return problems;
}

/** A reference to the tracker instead of the design: "issue 8", "issue #8", "the issue". */
export const TRACKER_REFERENCE = /\bissue[ -]?#?[0-9]+|\bthe issue\b/i;

/** Transcripts are data: they say whatever their authors said. */
function isData(rel: string): boolean {
  return /^(test\/fixtures|resources\/demo)\/.*\.(jsonl|json|traj)$/.test(rel);
}

export function trackerReferences(rel: string, text: string): string[] {
  const problems: string[] = [];
  text.split('\n').forEach((lineText, i) => {
    if (TRACKER_REFERENCE.test(lineText)) problems.push(`${rel}:${i + 1}: ${lineText.trim().slice(0, 160)}`);
  });
  return problems;
}

function docs(): string[] {
  const inDocs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...inDocs];
}

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const SELF = path.relative(ROOT, __filename).split(path.sep).join('/');

describe('the docs name only what is in the repository', () => {
  const entries = repoEntries();

  it('every path README.md and docs/*.md name exists', () => {
    const files = docs();
    expect(files).toContain('docs/ARCHITECTURE.md');
    expect(files).toContain('docs/performance.md');
    const named = files.flatMap((f) => namedPaths(f, read(f)));
    // The check reads what the docs name: the README links its docs, ARCHITECTURE names the files of every rule.
    expect(named.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => missingPaths(f, read(f), entries))).toEqual([]);
  });

  it('no doc cites ../shared or MEASUREMENTS.md unless the file is in the repository', () => {
    const files = [...docs(), 'CHANGELOG.md', 'test/fixtures/README.md'];
    expect(files.flatMap((f) => outsideCitations(f, read(f), entries))).toEqual([]);
  });

  it('the checks catch a wrong path, a placeholder that matches nothing and an outside citation', () => {
    expect(missingPaths('docs/x.md', 'rows in `electron/store/migrations/006-delete-indexes.ts`', entries)).toHaveLength(1);
    expect(missingPaths('docs/x.md', 'rows in `electron/store/migrations/010-delete-indexes.ts`', entries)).toEqual([]);
    // A bare file name must be some file's name: the migration cited as 006 is the file 010.
    expect(missingPaths('docs/x.md', 'indexes: migration `006-delete-indexes.ts`', entries)).toHaveLength(1);
    expect(missingPaths('docs/x.md', 'indexes: migration `010-delete-indexes.ts`, `main.ts`, root `*.config.ts`', entries)).toEqual([]);
    expect(missingPaths('docs/x.md', '`shared/strategies/{dag,nope}.ts`', entries)).toHaveLength(1);
    expect(missingPaths('docs/x.md', '`shared/export/<format>.ts` and `npx tsx bench/replay.ts --turns 100000`', entries)).toEqual([]);
    expect(missingPaths('docs/x.md', '`shared/nothing/<x>.ts`', entries)).toHaveLength(1);
    expect(missingPaths('README.md', 'see [the costs](docs/cost.md#simplifications) and [nothing](docs/none.md)', entries)).toHaveLength(1);
    expect(missingPaths('docs/x.md', 'see [costs](cost.md)', entries)).toEqual([]);
    // Quoted output in a fenced block is data: the paths of the session it summarizes.
    expect(missingPaths('docs/x.md', '````text\n- `test/elsewhere/x_test.exs`\n```\n````\n`test/nope.ts`', entries)).toHaveLength(1);
    expect(outsideCitations('README.md', 'facts from ../shared/MEASUREMENTS.md', entries)).toHaveLength(2);
    expect(outsideCitations('docs/x.md', 'the contract `../shared/contract.ts`', entries)).toEqual([]);
  });
});

describe('no file names the tracker instead of the design', () => {
  it('no code, comment, tooltip, test or doc says "issue N" or "the issue"', () => {
    const dirs = ['shared', 'electron', 'renderer', 'test', 'bench', 'scripts', 'docs', 'resources', 'bin', '.ci'];
    const files = [
      ...dirs.filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap((d) => walk(path.join(ROOT, d))),
      ...['README.md', 'CHANGELOG.md', 'package.json'],
    ].filter((f) => (TEXT.test(f) || f.startsWith('.ci/') || f.startsWith('bin/')) && !isData(f));
    expect(files).toContain('shared/strategies/two-line.ts');
    expect(files).toContain(SELF);
    // This file is left out: its samples below are the very phrases it forbids.
    const others = files.filter((f) => f !== SELF);
    expect(others.flatMap((f) => trackerReferences(f, read(f)))).toEqual([]);
  });

  it('the check catches the forms the tracker references took', () => {
    expect(trackerReferences('x.ts', ' * The loss ledger (issue 8 §3).')).toHaveLength(1);
    expect(trackerReferences('x.ts', "doc: 'Default 200,000 (the issue).'")).toHaveLength(1);
    expect(trackerReferences('x.ts', '/** Issue 9: record the facts. */\n// see issue #12\n// the pre-issue-9 summarizer')).toHaveLength(3);
    expect(trackerReferences('x.ts', 'a tissue 3 of issues; issued 4 times')).toEqual([]);
  });
});
