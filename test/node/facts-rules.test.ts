/**
 * The ledger's rules for what a path, an identifier and a fixed error are (shared/facts):
 * hand-made spans where each answer is known, then every fixture session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentBlock, Role } from '../../shared/model/turn.js';
import { turnsToItems } from '../../shared/model/items.js';
import { extractFacts, mergeFactSets, survives, type Fact, type FactSet } from '../../shared/facts/index.js';
import { commandTarget } from '../../shared/facts/errors.js';
import { COMMON_ROOTS, FILE_EXT_RE } from '../../shared/facts/patterns.js';
import { listTurns } from '../../electron/store/turns.js';
import { fixtureDb, sessionBySource, type FixtureDb } from '../helpers/fixture-sessions.js';

let toolId = 0;
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const use = (name: string, input: unknown): ContentBlock => ({ type: 'tool_use', id: `toolu_${++toolId}`, name, input });
const result = (content: string, isError = false): ContentBlock => ({ type: 'tool_result', tool_use_id: 'x', content, is_error: isError });
const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });
const facts = (...turns: Array<{ role: Role; blocks: ContentBlock[] }>) => extractFacts(turnsToItems(turns));
const of = (set: FactSet, category: Fact['category']) => set.facts.filter((f) => f.category === category);
const keys = (set: FactSet, category: Fact['category']) => of(set, category).map((f) => f.key);
const bash = (command: string) => use('Bash', { command });

describe('paths are paths', () => {
  it('slash-separated words from prose and commit messages are not paths; rooted, extension and usual-root paths are', () => {
    const set = facts(
      turn('user', text('Sessions are active/ended/inactive; fix lib/spotter/transcripts first, then src/store and ~/notes/todo and and/or the rest.')),
      turn('assistant', bash('git add lib/spotter/annotation.ex && git commit -m "refactor thinking/tool-threading/code/subagent"')),
      turn('user', result('[main 1a2b3c4] refactor thinking/tool-threading/code/subagent')),
      turn('assistant', text('The read/write/delete split and spotter/web/live stay; docs/intro.md is next.')),
    );
    expect(keys(set, 'path').sort()).toEqual(['docs/intro.md', 'lib/spotter/annotation.ex', 'lib/spotter/transcripts', 'src/store', '~/notes/todo']);
  });

  it('a path given to a tool is a path whatever its first directory', () => {
    const set = facts(turn('assistant', use('Glob', { pattern: '**/*.ex', path: 'spotter_web/live' })), turn('user', result('spotter_web/live/a.ex')));
    expect(keys(set, 'path')).toEqual(['spotter_web/live']);
  });

  it('a bare name with an extension said in prose is a library, not a file, until a tool input names it', () => {
    const library = facts(
      turn('user', text('Use highlight.js for the code blocks, like Node.js does.')),
      turn('assistant', bash('npm install highlight.js')),
      turn('user', result('added 1 package')),
    );
    expect(keys(library, 'path')).toEqual([]);
    const file = facts(
      turn('user', text('Fix highlight.js and check app.js.')),
      turn('assistant', use('Read', { file_path: '/home/u/proj/vendor/highlight.js' })),
      turn('user', result('export default {}')),
      turn('assistant', use('Read', { file_path: 'app.js' })),
      turn('user', result('import x from "y"')),
    );
    // The file the user named and a tool read is one fact (its bare name folded into the path).
    expect(keys(file, 'path').sort()).toEqual(['/home/u/proj/vendor/highlight.js', 'app.js']);
    expect(of(file, 'path').find((f) => f.key === 'app.js')).toMatchObject({ userNamed: true, actions: { read: 1, mentioned: 1 } });
  });

  it('a directory under the project root reads as its path, never as a bare root name (`lib`, `priv`)', () => {
    const set = facts(
      turn('assistant', use('Read', { file_path: '/home/u/proj/lib/spotter/a.ex' }), use('Read', { file_path: '/home/u/proj/mix.exs' })),
      turn('user', result('defmodule A do end'), result('defmodule Mix do end')),
      turn('assistant', bash('ls /home/u/proj/priv'), use('Grep', { pattern: 'foo', path: '/home/u/proj/lib' })),
      turn('user', result('repo\nstatic'), result('lib/spotter/a.ex:1:foo')),
    );
    const texts = Object.fromEntries(of(set, 'path').map((f) => [f.key, f.text]));
    expect(texts).toEqual({
      '/home/u/proj/lib/spotter/a.ex': 'lib/spotter/a.ex',
      '/home/u/proj/mix.exs': 'mix.exs',
      '/home/u/proj/priv': '/home/u/proj/priv',
      '/home/u/proj/lib': '/home/u/proj/lib',
    });
    // So a summary that says "lib" and "priv" as words has not kept those directories.
    const priv = of(set, 'path').find((f) => f.key === '/home/u/proj/priv')!;
    expect(survives(priv, 'The priv and lib folders hold the rest.')).toBe(false);
    expect(survives(priv, 'Listed /home/u/proj/priv: repo, static.')).toBe(true);
  });
});

describe('identifiers keep their dots and namespaces', () => {
  it('a module path, a namespaced name and a member call are one identifier each', () => {
    const set = facts(
      turn('user', text('Rename AshComputer.LiveView and keep AshComputer.LiveView.Session; see std::vec::Vec, os.path.join() and this.fooBar, e.g. the old one.')),
      turn('assistant', text('AshComputer.LiveView now mounts. Done.')),
    );
    const ids = of(set, 'identifier');
    expect(ids.map((f) => f.key).sort()).toEqual(['AshComputer.LiveView', 'AshComputer.LiveView.Session', 'os.path.join()', 'std::vec::Vec', 'this.fooBar']);
    expect(ids.find((f) => f.key === 'AshComputer.LiveView')!.mentions).toBe(2);
    // It survives as written, not as its halves.
    const ash = ids.find((f) => f.key === 'AshComputer.LiveView')!;
    expect(survives(ash, 'The AshComputer module and the LiveView page.')).toBe(false);
    expect(survives(ash, 'Renamed AshComputer.LiveView.')).toBe(true);
  });
});

describe('an error counts as fixed when a later command on the same target or file succeeds', () => {
  it('the same target with other arguments fixes it; another subcommand does not', () => {
    const set = facts(
      turn('assistant', bash('mix test test/a_test.exs:12')),
      turn('user', result('Exit code 2\n** (CompileError) test/a_test.exs:12: undefined function foo/0', true)),
      turn('assistant', bash('git commit -m "wip"')),
      turn('user', result('Exit code 1\nerror: pathspec did not match', true)),
      turn('assistant', bash('mix test')),
      turn('user', result('3 tests, 0 failures')),
      turn('assistant', bash('git status')),
      turn('user', result('On branch main')),
    );
    const errors = Object.fromEntries(of(set, 'error').map((e) => [e.key, e.fixed]));
    expect(errors).toEqual({ '** (compileerror) test/a_test.exs:12: undefined function foo/0': true, 'error: pathspec did not match': false });
  });

  it('a later successful command on the file the error points into fixes it; only looking at the file does not', () => {
    const set = facts(
      turn('assistant', bash('mix compile')),
      turn('user', result('Exit code 1\nerror: undefined variable x in lib/foo.ex:3', true)),
      turn('assistant', bash('cat lib/foo.ex')),
      turn('user', result('defmodule Foo do end')),
    );
    expect(of(set, 'error')[0]).toMatchObject({ fixed: false, targets: ['target:mix compile', 'file:lib/foo.ex'] });
    const fixed = facts(...[
      turn('assistant', bash('mix compile')),
      turn('user', result('Exit code 1\nerror: undefined variable x in lib/foo.ex:3', true)),
      turn('assistant', bash('elixir /home/u/proj/lib/foo.ex')),
      turn('user', result('ok')),
    ]);
    expect(of(fixed, 'error')[0].fixed).toBe(true);
  });

  it('a fix in a later span is seen when the spans merge', () => {
    const first = facts(turn('assistant', bash('npm run build -- --watch')), turn('user', result('Exit code 1\nerror TS2322: Type string is not assignable', true)));
    const second = facts(turn('assistant', bash('npm run build')), turn('user', result('built in 2s')));
    expect(of(first, 'error')[0].fixed).toBe(false);
    expect(of(mergeFactSets([first, second]), 'error')[0].fixed).toBe(true);
    const unrelated = facts(turn('assistant', bash('npm run lint')), turn('user', result('ok')));
    expect(of(mergeFactSets([first, unrelated]), 'error')[0].fixed).toBe(false);
  });

  it('what a command runs: its program and subcommand, without arguments', () => {
    expect(['mix test test/a.exs', 'npm run build -- --watch', 'python -m pytest tests/x.py', 'FOO=1 cargo test -p core', 'pytest -k foo', 'git push --set-upstream origin x'].map(commandTarget)).toEqual([
      'mix test',
      'npm run build',
      'python -m pytest',
      'cargo test',
      'pytest',
      'git push',
    ]);
  });
});

describe('the rules on the fixture sessions', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it('every path fact of every session is rooted, has an extension, starts at a usual root, or was given to a tool', () => {
    let paths = 0;
    const wrong: string[] = [];
    for (const s of f.sessions) {
      const turns = listTurns(f.db, s.id);
      const toolPaths = new Set<string>();
      let toolInputs = '';
      for (const t of turns) {
        for (const b of t.blocks) {
          if (b.type !== 'tool_use') continue;
          toolInputs += `${JSON.stringify(b.input)}\n`;
          for (const v of Object.values((b.input ?? {}) as Record<string, unknown>)) if (typeof v === 'string') toolPaths.add(v.replace(/^\.\//, ''));
        }
      }
      for (const p of of(extractFacts(turnsToItems(turns)), 'path')) {
        paths++;
        // (a `./dir/tool` in a command is rooted as written; the fact drops its `./`)
        const ok = /^(?:~|\.{1,2})?\//.test(p.key) || FILE_EXT_RE.test(p.key) || COMMON_ROOTS.has(p.key.split('/')[0]) || toolPaths.has(p.key) || toolInputs.includes(`./${p.key}`);
        if (!ok) wrong.push(p.key);
        // A path never reads as a bare word.
        if (!p.text.includes('/') && !FILE_EXT_RE.test(p.text)) wrong.push(`text ${p.text}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(paths).toBe(222);
  });

  it('the spotter session: `Phoenix.ConnTest.build_conn()` and `ExUnit.Case` are whole identifiers, no half of them is one', () => {
    const s = sessionBySource(f, 'spotter__258c7280');
    const set = extractFacts(turnsToItems(listTurns(f.db, s.id, { from: 0, to: 207 })));
    const ids = keys(set, 'identifier');
    expect(ids).toContain('Phoenix.ConnTest.build_conn()');
    expect(ids).toContain('ExUnit.Case');
    expect(ids).not.toContain('ExUnit');
    expect(ids).not.toContain('ConnTest');
  });
});
