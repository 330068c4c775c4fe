/**
 * A clean clone runs its tests: no test, benchmark, script, source file or doc depends on
 * anything outside the repository. The fixtures live in test/fixtures/ with their
 * licenses; the shared fixture folder beside the repository on the development machine is
 * not part of a user's clone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, REAL_FIXTURE_FORMATS, fixtureNames } from '../helpers/fixture-sessions.js';

const ROOT = path.resolve(__dirname, '../..');
const CHECKED_DIRS = ['test', 'bench', 'scripts', 'electron', 'shared', 'renderer', 'docs', 'resources', 'bin', '.ci'];
const CHECKED_FILES = ['README.md', 'package.json', 'tsconfig.json', 'vitest.config.ts', 'playwright.config.ts', 'vite.config.ts', 'electron-builder.yml'];
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|ya?ml|sh|html|css)$/;
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** The folder beside the repository the fixtures used to come from, and its sibling documents. */
export const OUTSIDE_PATH = /\.\.\/shared\/fixtures|\.\.\/\.\.\/shared\/(fixtures|samples|TOOLCHAIN|CONVENTIONS|MEASUREMENTS)|\/work\/shared\b/;
/** `path.resolve(ROOT, '..…')` / `path.join(ROOT, '..…')`: a path built from the repository root that steps out of it. */
const ROOT_ESCAPE = /path\.(?:resolve|join)\(\s*ROOT\s*,\s*['"`]\.\.(?:[/'"`])/;
const RELATIVE_LITERAL = /['"`](\.\.?\/[^'"`$\s]*)['"`]/g;

function isData(rel: string): boolean {
  // Transcripts are data: they mention whatever paths their authors had.
  return /^(test\/fixtures|resources\/demo)\/.*\.(jsonl|json|traj)$/.test(rel);
}

function checkedFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const rel = path.relative(ROOT, p).split(path.sep).join('/');
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(p);
      } else if ((TEXT.test(e.name) || rel.startsWith('.ci/') || rel.startsWith('bin/')) && !isData(rel)) out.push(p);
    }
  };
  for (const d of CHECKED_DIRS) if (fs.existsSync(path.join(ROOT, d))) walk(path.join(ROOT, d));
  for (const f of CHECKED_FILES) if (fs.existsSync(path.join(ROOT, f))) out.push(path.join(ROOT, f));
  return out;
}

/** Problems in one file: references to the outside folder, and relative paths that resolve outside the repository. */
export function outsideReferences(file: string, source: string): string[] {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const problems: string[] = [];
  source.split('\n').forEach((line, i) => {
    if (OUTSIDE_PATH.test(line)) problems.push(`${rel}:${i + 1}: refers to a folder outside the repository: ${line.trim()}`);
    if (!CODE.test(file)) return;
    if (ROOT_ESCAPE.test(line)) problems.push(`${rel}:${i + 1}: builds a path above the repository root: ${line.trim()}`);
    for (const m of line.matchAll(RELATIVE_LITERAL)) {
      const target = path.resolve(path.dirname(file), m[1]);
      if (path.relative(ROOT, target).startsWith('..')) problems.push(`${rel}:${i + 1}: '${m[1]}' resolves outside the repository`);
    }
  });
  return problems;
}

describe('a clean clone is self-contained', () => {
  it('no test, bench, script, source file or doc refers to a path outside the repository', () => {
    const files = checkedFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.endsWith(path.join('test', 'helpers', 'fixture-sessions.ts')))).toBe(true);
    // This file is left out: its examples below are the very paths it forbids.
    const others = files.filter((f) => path.resolve(f) !== path.resolve(__filename));
    expect(others.length).toBe(files.length - 1);
    expect(others.flatMap((f) => outsideReferences(f, fs.readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('the check catches the old fixture paths and paths that step out of the root', () => {
    const file = path.join(ROOT, 'test/node/example.test.ts');
    expect(outsideReferences(file, "const FIXTURES = path.resolve(ROOT, '../shared/fixtures');")).toHaveLength(2);
    expect(outsideReferences(file, "const X = path.join(ROOT, '../elsewhere/data.json');")).toHaveLength(1);
    expect(outsideReferences(file, "import x from '../../../outside/x.js';")).toHaveLength(1);
    expect(outsideReferences(path.join(ROOT, 'README.md'), 'Tests read `../shared/fixtures/`.')).toHaveLength(1);
    expect(outsideReferences(path.join(ROOT, 'docs/x.md'), 'see ../../shared/MEASUREMENTS.md')).toHaveLength(1);
    // The project's own shared/ folder is inside the repository.
    expect(outsideReferences(file, "import { X } from '../../shared/contract.js';")).toEqual([]);
    expect(outsideReferences(file, "const ROOT = path.resolve(__dirname, '../..');")).toEqual([]);
  });

  it('the fixtures are inside the repository, each real transcript beside the MIT license of its source', () => {
    expect(path.relative(ROOT, FIXTURES)).toBe(path.join('test', 'fixtures'));
    const readme = fs.readFileSync(path.join(FIXTURES, 'README.md'), 'utf8');
    const names = fixtureNames();
    expect(names.map((n) => n.split('/')[0]).filter((f, i, a) => a.indexOf(f) === i)).toEqual([...REAL_FIXTURE_FORMATS]);
    for (const name of names) {
      const [format, file] = name.split('/');
      const source = file.split('__')[0];
      const license = path.join(FIXTURES, format, `LICENSE-${source}`);
      expect(fs.existsSync(license), `${name}: no ${format}/LICENSE-${source}`).toBe(true);
      const text = fs.readFileSync(license, 'utf8');
      expect(text.startsWith('MIT License\n\nCopyright (c) ')).toBe(true);
      expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
      expect(readme).toContain(`\`${format}/LICENSE-${source}\``);
      expect(readme).toContain(`\`${format}/${source}__*\``);
    }
  });
});
