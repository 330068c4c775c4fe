/**
 * The facts of a span and the loss ledger (shared/facts): a hand-made session
 * where every fact is known, then the real fixtures with pinned counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentBlock, Role } from '../../shared/model/turn.js';
import { itemSegments, itemSegmentsOf, turnsToItems, turnToItem } from '../../shared/model/items.js';
import { canonicalCommand, extractFacts, FACT_CATEGORIES, ledgerOf, mergeFactSets, summaryLedgerOf, survives, survivesIn, SURVIVAL_WORD_SHARE, topLedgerOf, visibleIndex, type Fact, type FactSet } from '../../shared/facts/index.js';
import { fixtureDb, sessionBySource, SPOTTER_CC_RETENTION, type FixtureDb } from '../helpers/fixture-sessions.js';
import { listExternalCompactions, listTurns } from '../../electron/store/turns.js';
import { mayOccur, occurs, wordRuns } from '../../shared/facts/ledger.js';
import { extractTurnFacts, turnFactStream } from '../../shared/facts/extract.js';
import { dealAgain } from '../../shared/facts/word-numbers.js';
import { COMMON_ROOTS, FILE_EXT_RE, knownPathsIn, pathOf, pathsIn, STOPWORDS, TOKEN_SPLIT_RE, URL_RE } from '../../shared/facts/patterns.js';

let toolId = 0;
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const use = (name: string, input: unknown): ContentBlock => ({ type: 'tool_use', id: `toolu_${++toolId}`, name, input });
const result = (content: string, isError = false): ContentBlock => ({ type: 'tool_result', tool_use_id: 'x', content, is_error: isError });
const turn = (role: Role, ...blocks: ContentBlock[]) => ({ role, blocks });

/** A session written so that every fact in it is known (see the expectations below). */
const HAND_MADE = turnsToItems([
  turn('system', text('You are a coding agent.')),
  turn('user', text('Please fix the failing test in lib/spotter/annotation.ex and keep `TranscriptRenderer` stable. It takes 120 ms.\n<system-reminder>ignore lib/secret/hidden.ex</system-reminder>')),
  turn('assistant', use('Read', { file_path: '/home/u/proj/lib/spotter/annotation.ex' }), use('TodoWrite', { todos: [{ content: 'Fix annotation test', status: 'in_progress', activeForm: 'Fixing' }, { content: 'Run mix test', status: 'pending', activeForm: 'Running' }] })),
  turn('user', result('defmodule Spotter.Annotation do\n  alias lib/other/thing.ex\nend'), result('Todos have been modified successfully')),
  turn('assistant', text("I'll edit it. Request id req_011CUabcdefgh and msg_01ABCDEFGH at 2025-01-01T10:00:00Z, see </span> and 550e8400-e29b-41d4-a716-446655440000."), use('Edit', { file_path: '/home/u/proj/lib/spotter/annotation.ex', old_string: 'fooBar()', new_string: 'bazQux()' })),
  turn('user', result('The file /home/u/proj/lib/spotter/annotation.ex has been updated.')),
  turn('assistant', use('Bash', { command: 'cd /home/u/proj && mix test 2>&1 | tail -20', description: 'Run tests' })),
  turn('user', result('Exit code 2\nCompiling 3 files (.ex)\n** (CompileError) lib/spotter/annotation.ex:12: undefined function foo/1', true)),
  turn('assistant', use('Write', { file_path: '/home/u/proj/test/annotation_test.exs', content: 'defmodule AnnotationTest do end' }), use('Bash', { command: 'mix test' })),
  turn('user', result('File created successfully'), result('Finished in 0.4 seconds\n12 tests, 0 failures')),
  turn('assistant', text('All 12 tests pass now; see https://example.com/docs/run and ticket #482. Ran `mix test` in 0.4s.'), use('TodoWrite', { todos: [{ content: 'Fix annotation test', status: 'completed' }, { content: 'Run mix test', status: 'completed' }, { content: 'Push the branch', status: 'pending' }] })),
  turn('user', result('Todos have been modified successfully')),
  turn('assistant', use('Bash', { command: 'git push' })),
  turn('user', result('Exit code 128\nfatal: The current branch spotter-gqc has no upstream branch.', true)),
]);

const find = (set: FactSet, category: Fact['category'], key: string) => set.facts.find((f) => f.category === category && f.key === key);
const keysOf = (set: FactSet, category: Fact['category']) => set.facts.filter((f) => f.category === category).map((f) => f.key).sort();

describe('extractFacts on a hand-made session', () => {
  const set = extractFacts(HAND_MADE);

  it('finds exactly the request, the paths with their actions, the commands with outcomes', () => {
    expect(set.itemCount).toBe(14);
    expect(keysOf(set, 'request')).toEqual(['please fix the failing test in lib/spotter/annotation.ex and keep `transcriptrenderer` stable. it takes 120 ms.']);
    // The harness block's path is not the user's and not a fact; the read result's content is not scanned.
    expect(keysOf(set, 'path')).toEqual(['/home/u/proj/lib/spotter/annotation.ex', '/home/u/proj/test/annotation_test.exs']);
    const annotation = find(set, 'path', '/home/u/proj/lib/spotter/annotation.ex')!;
    // user's mention (folded from the relative form) + Read + Edit + the error output naming it again;
    // the Edit result's "The file ... has been updated" names it too: 5 mentions.
    expect(annotation).toMatchObject({ text: 'lib/spotter/annotation.ex', userNamed: true, mentions: 5, firstItem: 1, lastItem: 7, actions: { mentioned: 3, read: 1, edited: 1 }, detail: 'edited, read' });
    expect(find(set, 'path', '/home/u/proj/test/annotation_test.exs')).toMatchObject({ text: 'test/annotation_test.exs', actions: { created: 1 }, detail: 'created', userNamed: false });

    expect(keysOf(set, 'command')).toEqual(['git push', 'mix test']);
    expect(find(set, 'command', 'mix test')).toMatchObject({ mentions: 2, ok: true, exitCode: null, failures: 1, detail: 'ran 2×, ok after 1 failure', firstItem: 6, lastItem: 8 });
    expect(find(set, 'command', 'git push')).toMatchObject({ mentions: 1, ok: false, exitCode: 128, detail: 'failed, exit 128' });
  });

  it('finds the errors and whether a later run fixed them', () => {
    expect(set.facts.filter((f) => f.category === 'error').map((f) => [f.text, f.fixed, f.detail])).toEqual([
      ['** (CompileError) lib/spotter/annotation.ex:12: undefined function foo/1', true, 'fixed later'],
      ['fatal: The current branch spotter-gqc has no upstream branch.', false, 'not fixed'],
    ]);
  });

  it('finds identifiers and numbers with units, never request ids, uuids, timestamps or tags', () => {
    expect(keysOf(set, 'identifier')).toEqual(['#482', 'TranscriptRenderer', 'https://example.com/docs/run']);
    expect(find(set, 'identifier', 'TranscriptRenderer')!.userNamed).toBe(true);
    expect(set.facts.filter((f) => f.category === 'number').map((f) => [f.key, f.text, f.userNamed])).toEqual([
      ['120 ms', '120 ms', true],
      ['12 test', '12 tests', false],
      ['0.4 s', '0.4s', false],
    ]);
    const all = JSON.stringify(set.facts);
    for (const noise of ['req_011', 'msg_01', '2025-01-01', '10:00', '550e8400', 'span', 'hidden.ex', 'fooBar', 'toolu_']) expect(all).not.toContain(noise);
  });

  it('keeps the todo list as of the span end', () => {
    expect(set.facts.filter((f) => f.category === 'todo').map((f) => [f.text, f.status, f.mentions, f.firstItem, f.lastItem])).toEqual([
      ['Fix annotation test', 'completed', 2, 2, 10],
      ['Run mix test', 'completed', 2, 2, 10],
      ['Push the branch', 'pending', 1, 10, 10],
    ]);
  });

  it('ledger: what a summary keeps and loses, forgiving but not trivially true', () => {
    const summary = 'The user asked to fix the failing test in annotation.ex keeping TranscriptRenderer stable. Edited lib/spotter/annotation.ex; ran `mix test` (12 tests pass). git push failed: no upstream branch. Pending: push the branch.';
    const l = ledgerOf(set, summary);
    expect(l.retention).toEqual({
      request: { kept: 1, total: 1 }, // 8 of its 10 content words are in the summary
      todo: { kept: 1, total: 1 }, // only the open one is scored
      path: { kept: 1, total: 2 }, // test/annotation_test.exs is lost
      command: { kept: 2, total: 2 },
      error: { kept: 0, total: 2 }, // "fatal: … no upstream branch": 3 of 6 content words, under 60%
      identifier: { kept: 1, total: 3 },
      number: { kept: 1, total: 3 }, // "12 tests" kept; "120 ms" and "0.4s" lost
    });
    expect(l.kept.length + l.lost.length).toBe(14);
    // Ranked by salience: the unfixed error (late, a failure), the created file, the user's figure.
    expect(l.lost.map((f) => f.text)).toEqual(['fatal: The current branch spotter-gqc has no upstream branch.', 'test/annotation_test.exs', '120 ms', 'https://example.com/docs/run', '#482', '0.4s', '** (CompileError) lib/spotter/annotation.ex:12: undefined function foo/1']);
    // Nothing survives in an empty text; everything survives in the span's own text? Paths and
    // commands do, by construction.
    expect(ledgerOf(set, '').retention.path.kept).toBe(0);
  });

  it('survives: paths by full path or a two-segment suffix, commands normalized, numbers by value and unit', () => {
    const annotation = find(set, 'path', '/home/u/proj/lib/spotter/annotation.ex')!;
    expect(survives(annotation, 'see spotter/annotation.ex')).toBe(true);
    expect(survives(annotation, 'see annotation.ex')).toBe(false);
    const mixTest = find(set, 'command', 'mix test')!;
    expect(survives(mixTest, 'ran mix\n  test twice')).toBe(true);
    expect(survives(mixTest, 'ran mix tests')).toBe(true); // a substring: "mix test" is in "mix tests"
    expect(survives(mixTest, 'ran the tests')).toBe(false);
    const ms = find(set, 'number', '120 ms')!;
    expect(survives(ms, 'it took 120ms')).toBe(true);
    expect(survives(ms, 'it took 1120 ms')).toBe(false);
    expect(survives(ms, 'it took 120 seconds')).toBe(false);
    const id = find(set, 'identifier', 'TranscriptRenderer')!;
    expect(survives(id, 'TranscriptRendererTest')).toBe(false);
  });

  it('mergeFactSets: a union in one timeline, counts summed, the latest todo state and outcome winning', () => {
    const first = extractFacts(HAND_MADE.slice(0, 8));
    const second = extractFacts(HAND_MADE.slice(8));
    const merged = mergeFactSets([first, second]);
    expect(merged.itemCount).toBe(14);
    expect(find(merged, 'command', 'mix test')).toMatchObject({ mentions: 2, ok: true, firstItem: 6, lastItem: 8, detail: 'ran 2×, ok after 1 failure' });
    expect(find(merged, 'todo', 'fix annotation test')!.status).toBe('completed');
    // The first half's todo state is in_progress; the merge takes the second half's.
    expect(find(first, 'todo', 'fix annotation test')!.status).toBe('in_progress');
    // The first half leaves the CompileError of `mix test` open; the second half's successful
    // `mix test` fixes it, and the merge learns that from the error's source command.
    expect(find(first, 'error', '** (compileerror) lib/spotter/annotation.ex:12: undefined function foo/1')!.fixed).toBe(false);
    expect(find(merged, 'error', '** (compileerror) lib/spotter/annotation.ex:12: undefined function foo/1')!.fixed).toBe(true);
  });

  it('canonicalCommand: cd prefixes, output filters and heredocs are not the command', () => {
    expect(canonicalCommand('cd /a/b && npm test 2>&1 | tail -30')).toBe('npm test');
    expect(canonicalCommand('git commit -m "$(cat <<\'EOF\'\nmsg\nEOF\n)"')).toBe('git commit -m');
    expect(canonicalCommand('cd /tmp')).toBe('');
  });
});

describe('path tokens', () => {
  it('pathsIn and knownPathsIn cut tokens exactly where TOKEN_SPLIT_RE splits (every \\s, Unicode spaces included)', () => {
    // Each separator class of TOKEN_SPLIT_RE between paths: ASCII whitespace, the Unicode
    // spaces JavaScript's \s matches (NBSP, en quad, line separator, ideographic space, BOM),
    // the punctuation it lists; and characters it does NOT split on (\u0085, \u200b, ':').
    const seps = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '"', "'", '`', '(', ')', ',', ';', '<', '>', '[', ']', '{', '}', '|', '='];
    const names = ['lib/a.ex', 'src/store/x', './b/c/d.ts', '/home/u/p/e.py', 'f.md:12:7', 'g.json.', 'no', 'and/or', 'x\u0085lib/y.ex', 'lib/z\u200b.ex', 'http://h.io/lib/u.ex'];
    const text = names.flatMap((n, i) => [n, seps[i % seps.length], seps[(i * 7 + 3) % seps.length]]).join('') + seps.join('lib/q.ex');
    // The reference: what the split gave before the scan replaced it.
    const byPathOf = text.replace(URL_RE, ' ').split(TOKEN_SPLIT_RE).filter((t) => t.length >= 4 && (t.includes('/') || t.includes('.'))).flatMap((t) => pathOf(t) ?? []);
    expect(pathsIn(text)).toEqual(byPathOf);
    expect(pathsIn(text)).toContain('lib/q.ex');
    const seen: string[] = [];
    knownPathsIn(text, (p) => (seen.push(p), true));
    const expected = text.split(TOKEN_SPLIT_RE).filter((t) => t.length >= 4 && (t.includes('/') || t.includes('.'))).map((t) => t.replace(/(?::\d+)*[.,:!?]*$/, '').replace(/^\.\//, ''));
    expect(seen).toEqual(expected);
  });
});

/** The rules of survivesIn (ledger.ts) with no index, prefilter, memo or numbered words: the reference. */
const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
const includesWord = (hay: string, n: string) => {
  for (let at = hay.indexOf(n); at >= 0; at = hay.indexOf(n, at + 1)) if ((!isWord(n[0]) || !isWord(hay[at - 1])) && (!isWord(n[n.length - 1]) || !isWord(hay[at + n.length]))) return true;
  return false;
};
const contentSet = (t: string) => new Set([...t.toLowerCase().matchAll(/[a-z][a-z0-9_]{2,}/g)].map((m) => m[0]).filter((w) => !STOPWORDS.has(w)));
function plainSurvives(fact: Fact, raw: string): boolean {
  const collapsed = raw.replace(/\s+/g, ' ');
  const lower = collapsed.toLowerCase();
  switch (fact.category) {
    case 'path': {
      if (raw.includes(fact.key)) return true;
      if (fact.text !== fact.key && (fact.text.includes('/') ? raw.includes(fact.text) : includesWord(raw, fact.text))) return true;
      const segs = fact.key.split('/').filter((x) => x.length > 0);
      return segs.length >= 2 ? raw.includes(segs.slice(-2).join('/')) : includesWord(raw, fact.key);
    }
    case 'command': {
      const c = fact.key.replace(/\s+/g, ' ');
      return collapsed.includes(c.length <= 60 ? c : c.slice(0, 60).replace(/\s+\S*$/, ''));
    }
    case 'identifier':
      return includesWord(raw, fact.key);
    case 'number':
      return survives(fact, raw); // held to its plain scan by the test below
    default: {
      if (lower.includes(fact.key)) return true;
      const mine = contentSet(fact.text);
      const seen = contentSet(raw);
      return mine.size > 0 && [...mine].filter((w) => seen.has(w)).length / mine.size >= SURVIVAL_WORD_SHARE;
    }
  }
}

describe('extractFacts on the real fixtures', () => {
  let f: FixtureDb;
  beforeAll(() => {
    f = fixtureDb();
  });
  afterAll(() => f.close());

  it("a turn's item, an item's segments and what a said segment says are found once and kept out of sight; the facts read through them are the facts of fresh ones (every fixture session)", () => {
    for (const s of f.sessions) {
      const turns = listTurns(f.db, s.id);
      const before = JSON.stringify(turns);
      const items = turnsToItems(turns);
      // The same objects on a second read, equal to items made from copies of the turns.
      expect(turnsToItems(turns).every((item, i) => item === items[i])).toBe(true);
      expect(items).toEqual(turnsToItems(turns.map((t) => ({ role: t.role, blocks: t.blocks }))));
      expect(items.every((item) => itemSegmentsOf(item) === itemSegmentsOf(item))).toBe(true);
      expect(items.map(itemSegmentsOf)).toEqual(items.map((item) => itemSegments(item.text)));
      // Kept on the turn under a hidden key: its JSON, keys and equality are unchanged.
      expect(JSON.stringify(turns)).toBe(before);
      expect(Object.keys(turns[0])).toEqual(Object.keys(JSON.parse(before)[0]));
      // Read again through the kept items, segments and what each said segment says (found at the
      // first read, done again to each later collector), the facts are those of fresh copies.
      const fresh = extractFacts(turnsToItems(structuredClone(turns)));
      expect(extractTurnFacts(turns)).toEqual(fresh);
      expect(extractTurnFacts(turns)).toEqual(fresh);
      expect(turnFactStream()(turns)).toEqual(fresh);
    }
    // A turn that cannot take a key (frozen) is read each time, to the same item.
    const frozen = Object.freeze({ role: 'user' as const, blocks: [text('hello')] });
    expect(turnToItem(frozen)).toEqual(turnToItem(frozen));
  });

  it('the word-run prefilter of the ledger never rules out a needle the context holds (every fixture session)', () => {
    // mayOccur (shared/facts/ledger.ts) is a necessary condition for `text.includes(needle)`
    // (interior word runs are whole runs of the text) and, with wholeWord, for a whole-word
    // occurrence (every word run). Checked on needles that DO occur: each fact's key and text,
    // substrings at every 97th character, and whitespace-bounded tokens (whole-word occurrences).
    const missed: string[] = [];
    let checked = 0;
    const expectOccurs = (runs: ReadonlySet<string>, needle: string, wholeWord: boolean) => {
      checked++;
      if (!mayOccur(runs, needle, wholeWord) && missed.length < 5) missed.push(needle);
    };
    for (const s of f.sessions) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const text = items.map((i) => i.text).join('\n');
      const runs = wordRuns(text);
      for (const fact of extractFacts(items).facts) for (const needle of [fact.key, fact.text]) if (text.includes(needle)) expectOccurs(runs, needle, false);
      for (let at = 0; at < text.length; at += 97) for (const len of [1, 3, 8, 20, 60]) expectOccurs(runs, text.slice(at, at + len), false);
      for (const token of new Set(text.split(/\s+/))) if (token.length > 0) expectOccurs(runs, token, true);
    }
    expect(missed).toEqual([]);
    expect(checked).toBeGreaterThan(100_000);
  });

  it('occurs is `includes` on every fixture session: needles that occur and needles one character off, in the raw, collapsed and lowercased text', () => {
    let checked = 0;
    let found = 0;
    const wrong: string[] = [];
    for (const s of f.sessions) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const whole = items.map((i) => i.text).join('\n');
      const v = visibleIndex(whole.slice(Math.floor(whole.length / 2)));
      const needles = new Set<string>();
      for (const fact of extractFacts(items).facts) needles.add(fact.key).add(fact.text);
      for (let at = 0; at < whole.length; at += 211) for (const len of [2, 9, 30, 90]) needles.add(whole.slice(at, at + len));
      for (const n of [...needles]) if (n.length > 4) needles.add(`${n.slice(0, n.length >> 1)}q${n.slice((n.length >> 1) + 1)}`);
      for (const which of ['raw', 'collapsed', 'lower'] as const) {
        for (const n of needles) {
          const want = v[which].includes(n);
          checked++;
          if (want) found++;
          if (occurs(v, which, n) !== want && wrong.length < 5) wrong.push(`${which}: ${n}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(found).toBeGreaterThan(10_000);
    expect(checked - found).toBeGreaterThan(10_000);
  });

  it('a ledger is the same after the word numbers are dealt again (as when they run out), before or between its checks', () => {
    for (const s of f.sessions.slice(0, 6)) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const facts = extractFacts(items);
      const seen = items.slice(Math.floor(items.length / 2)).map((i) => i.text).join('\n');
      const want = summaryLedgerOf(ledgerOf(facts, seen));
      dealAgain();
      expect(topLedgerOf(facts, seen)).toEqual(want);
      // Dealt again while a context is marked and the facts hold numbers of the old epoch.
      const v = visibleIndex(seen);
      const uninterrupted = facts.facts.map((x) => survivesIn(x, v));
      const interrupted = facts.facts.map((x, i) => {
        if (i % 7 === 3) dealAgain();
        return survivesIn(x, v);
      });
      expect(interrupted).toEqual(uninterrupted);
    }
  });

  it('mergeFactSets with intoFirst is the same merge, taking over the first set\'s facts instead of copying them', () => {
    for (const s of f.sessions) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const cut = (k: number) => Math.floor((items.length * k) / 3);
      const parts = () => [extractFacts(items.slice(0, cut(1))), extractFacts(items.slice(cut(1), cut(2))), extractFacts(items.slice(cut(2)))];
      const copied = mergeFactSets(parts(), { todos: 'latest' });
      const own = parts();
      const taken = mergeFactSets(own, { todos: 'latest', intoFirst: true });
      expect(taken).toEqual(copied);
      // The first set's facts are the result's own objects; the others' are copies.
      if (own[0].facts.some((x) => x.category !== 'todo')) expect(taken.facts.some((x) => own[0].facts.includes(x))).toBe(true);
      expect(taken.facts.some((x) => own[1].facts.includes(x) || own[2].facts.includes(x))).toBe(false);
    }
  });

  it('a chain of intoFirst merges (a rolling replay\'s summaries) equals the chain of copying merges, link by link, on every fixture session', () => {
    // Each link takes over the previous result and its kept index, and reads only the new part;
    // the copying chain indexes every fact again. Relative paths folded into absolute ones in a
    // later link leave the kept index (a hand-made chain below makes sure some are).
    const plain = (x: FactSet) => JSON.parse(JSON.stringify(x)) as unknown;
    const chain = (parts: () => FactSet[]) => {
      const own = parts();
      const ref = parts();
      let taken = own[0];
      let copied = ref[0];
      for (let i = 1; i < own.length; i++) {
        taken = mergeFactSets([taken, own[i]], { intoFirst: true });
        copied = mergeFactSets([copied, ref[i]]);
        expect(plain(taken)).toEqual(plain(copied));
      }
      return taken;
    };
    let links = 0;
    for (const s of f.sessions) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const k = Math.min(8, items.length);
      const cut = (j: number) => Math.floor((items.length * j) / k);
      chain(() => Array.from({ length: k }, (_, j) => extractFacts(items.slice(cut(j), cut(j + 1)))));
      links += k - 1;
    }
    expect(links).toBeGreaterThan(100);
    const said = (t: string) => turnsToItems([turn('assistant', text(t))]);
    const folded = chain(() => [extractFacts(said('Edit src/app/main.ts now.')), extractFacts(said('Opened /home/u/proj/src/app/main.ts to read it.')), extractFacts(said('Back in src/app/main.ts again, and lib/x.ts.')), extractFacts(said('Now /srv/lib/x.ts too.'))]);
    expect(folded.facts.filter((x) => x.category === 'path').map((x) => x.key)).toEqual(['/home/u/proj/src/app/main.ts', '/srv/lib/x.ts']);
  });

  it('topLedgerOf is summaryLedgerOf(ledgerOf(...)) on every fixture session: same retention, same top facts in the same order', () => {
    // Each session's facts against its own later half and against the other half's text, and
    // with tops of 0, 1, 3 and 20; merged sets too (the per-summary ledgers of a condensation).
    let compared = 0;
    for (const s of f.sessions) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const half = Math.floor(items.length / 2);
      const early = extractFacts(items.slice(0, half));
      const late = extractFacts(items.slice(half));
      const texts = [items.slice(half).map((i) => i.text).join('\n'), items.slice(0, half).map((i) => i.text).join('\n').slice(0, 20_000)];
      for (const span of [early, late, mergeFactSets([early, late])]) {
        for (const seen of texts) {
          for (const top of [0, 1, 3, 20]) {
            expect(topLedgerOf(span, seen, top)).toEqual(summaryLedgerOf(ledgerOf(span, seen), top));
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(f.sessions.length * 3 * 2 * 4);
  });

  it('turnFactStream is extractTurnFacts at every call: growing prefixes resume, any other list starts over, and the collector\'s own facts stay as read', () => {
    let calls = 0;
    for (const s of f.sessions) {
      const turns = listTurns(f.db, s.id);
      const stream = turnFactStream();
      const cuts = [Math.floor(turns.length / 3), Math.floor(turns.length / 3), Math.floor((2 * turns.length) / 3), turns.length];
      for (const cut of cuts) {
        // Compared before the next call: what it returns is valid until then.
        expect(stream(turns.slice(0, cut))).toEqual(extractTurnFacts(turns.slice(0, cut)));
        calls++;
      }
      // Not a prefix of what it read: read from the start.
      const tail = turns.slice(cuts[0]);
      expect(stream(tail)).toEqual(extractTurnFacts(tail));
    }
    expect(calls).toBe(f.sessions.length * 4);
  });

  it('survivesIn is its rules read plainly (string scans, word sets), for every fact of every fixture session, checked against two contexts in turns', () => {
    const plain = plainSurvives;
    let checked = 0;
    let kept = 0;
    const wrong: string[] = [];
    for (const s of f.sessions) {
      const items = turnsToItems(listTurns(f.db, s.id));
      const half = Math.floor(items.length / 2);
      const texts = [items.slice(half).map((i) => i.text).join('\n'), items.slice(0, half).map((i) => i.text).join('\n')];
      const indexes = texts.map((t) => visibleIndex(t));
      const facts = extractFacts(items).facts;
      // Alternating between the two contexts fact by fact: each check switches the marked text.
      for (const fact of facts) {
        for (let k = 0; k < 2; k++) {
          const want = plain(fact, texts[k]);
          checked++;
          if (want) kept++;
          if (survivesIn(fact, indexes[k]) !== want && wrong.length < 5) wrong.push(`${fact.category} ${fact.key}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // 985 facts of the 20 fixture sessions, each against both halves of its session (1,024 before
    // slash-separated words stopped counting as paths and dotted names as two identifiers).
    expect([checked, kept]).toEqual([1970, 1339]);
  });

  it("a fact's anchor run never rules out a context it survives in: every fixture fact against its own needles, cut and padded", () => {
    // survivesIn answers `lost` at once when a run every needle needs is absent (Probe.anchor):
    // contexts made to sit at the edges of that rule — the needles alone, inside longer words,
    // after a '/', with a letter glued on either side — must get the plain rules' answer.
    let checked = 0;
    let kept = 0;
    const wrong: string[] = [];
    for (const s of f.sessions) {
      for (const fact of extractFacts(turnsToItems(listTurns(f.db, s.id))).facts) {
        const segs = fact.key.split('/').filter((x) => x.length > 0);
        const needles = [...new Set([fact.key, fact.text, segs.slice(-2).join('/'), segs[segs.length - 1] ?? ''])].filter((n) => n.length > 0);
        for (const n of needles) {
          for (const context of [n, `x${n}x`, `${n}s`, `a${n}`, `/${n}`, `q/${n}.`, `(${n})`, n.slice(1), n.slice(0, -1), `${n.slice(0, 1)} ${n.slice(1)}`]) {
            const want = plainSurvives(fact, context);
            checked++;
            if (want) kept++;
            if (survivesIn(fact, visibleIndex(context)) !== want && wrong.length < 5) wrong.push(`${fact.category} ${JSON.stringify(fact.key)} in ${JSON.stringify(context)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(10_000);
    expect(kept).toBeGreaterThan(checked / 4);
  });

  it('a number survives where the plain scan finds it: its value (commas optional) not inside a longer number, then its unit', () => {
    // The scan the number rule had before its places were indexed (ledger.ts numberStarts), as the reference.
    const scan = (key: string, lower: string): boolean => {
      const sp = key.indexOf(' ');
      const value = key.slice(0, sp);
      const unit = key.slice(sp + 1);
      const withCommas = value.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
      for (const form of value === withCommas ? [value] : [value, withCommas]) {
        for (let at = lower.indexOf(form); at >= 0; at = lower.indexOf(form, at + 1)) {
          if (/[\d.]/.test(lower[at - 1] ?? '') || /\d/.test(lower[at + form.length] ?? '')) continue;
          const rest = lower.slice(at + form.length, at + form.length + unit.length + 2).trimStart();
          if (rest.startsWith(unit) || (unit === '×' && rest.startsWith('x'))) return true;
        }
      }
      return false;
    };
    const texts = f.sessions.map((s) => turnsToItems(listTurns(f.db, s.id)).map((i) => i.text).join('\n'));
    const numbers = texts.flatMap((t) => extractFacts([{ role: 'user', text: t }] as never).facts.filter((x) => x.category === 'number' && !x.key.startsWith('$')));
    let kept = 0;
    const differ: string[] = [];
    // Every session's number facts against every session's text: found in their own, mostly not in the others.
    for (const text of texts) {
      const lower = text.replace(/\s+/g, ' ').toLowerCase();
      for (const n of numbers) {
        const want = scan(n.key, lower);
        if (want) kept++;
        if (survives(n, text) !== want && differ.length < 5) differ.push(n.key);
      }
    }
    expect(differ).toEqual([]);
    // The fixtures' 40 number facts (values with units) in 20 texts: 800 checks, 127 of them found
    // (each in its own session's text, and 87 more where another session mentions the same figure).
    expect([numbers.length, kept]).toEqual([40, 127]);
  });

  it('pathOf and knownPathsIn agree with their regex definitions on every token of every fixture session', () => {
    // The regex form pathOf had before it became character scans (shared/facts/patterns.ts), as the reference.
    const SEG = /^[\w.@+-]+$/;
    const regexPathOf = (token: string): string | null => {
      const t = token.replace(/(?::\d+)+$/, '').replace(/[.,:!?]+$/, '');
      if (t.length < 4 || t.includes('://') || t.includes('\\')) return null;
      if (!t.includes('/')) return FILE_EXT_RE.test(t) && SEG.test(t) && !/^\.?\d/.test(t) && !/^\.[^.]+$/.test(t) ? t : null;
      if (t.startsWith('/dev/')) return null;
      const segments = t.replace(/^(?:~|\.{1,2})?\//, '').split('/').filter((x) => x.length > 0);
      if (segments.length === 0 || !segments.every((x) => SEG.test(x)) || segments.every((x) => /^\d+$/.test(x))) return null;
      if (FILE_EXT_RE.test(t)) return t;
      // Slash-separated words are no path however many segments: a root or a usual first directory is needed.
      if (segments.length >= 2 && (/^(?:~|\.{1,2})?\//.test(t) || COMMON_ROOTS.has(segments[0]))) return t;
      return null;
    };
    let tokens = 0;
    let paths = 0;
    const mismatches: string[] = [];
    for (const s of f.sessions) {
      for (const t of listTurns(f.db, s.id)) {
        const text = turnsToItems([t])[0].text;
        for (const token of text.split(TOKEN_SPLIT_RE)) {
          if (token.length === 0) continue;
          tokens++;
          const want = regexPathOf(token);
          if (want) paths++;
          if (pathOf(token) !== want && mismatches.length < 5) mismatches.push(token);
          // Edge forms a session rarely holds, on every token: trailing positions and punctuation, ./ prefixes.
          for (const v of [`${token}:12:7`, `${token}.`, `./${token}`, `~/${token}/x`]) if (pathOf(v) !== regexPathOf(v) && mismatches.length < 5) mismatches.push(v);
        }
        const all: string[] = [];
        knownPathsIn(text, (p) => (all.push(p), false));
        const splitWay = text.split(TOKEN_SPLIT_RE).filter((x) => x.length >= 4 && (x.includes('/') || x.includes('.')));
        expect(all.length).toBe(splitWay.length);
      }
    }
    expect(mismatches).toEqual([]);
    // Real data, not a handful: hundreds of thousands of tokens, thousands of them paths.
    expect(tokens).toBeGreaterThan(100_000);
    expect(paths).toBeGreaterThan(1_000);
  });

  it('the spotter span Claude Code compacted (turns 0–206): pinned counts, and the ledger of its own summary', () => {
    const s = sessionBySource(f, 'spotter__258c7280');
    const [cc] = listExternalCompactions(f.db, s.id);
    expect([cc.firstPosition, cc.lastPosition]).toEqual([0, 206]);
    const turns = listTurns(f.db, s.id, { from: 0, to: 207 });
    const set = extractFacts(turnsToItems(turns));
    const count = (c: Fact['category']) => set.facts.filter((x) => x.category === c).length;
    // Commands: the distinct canonical Bash commands of the span, counted independently below.
    const bash = new Set<string>();
    for (const t of turns) for (const b of t.blocks) if (b.type === 'tool_use' && b.name === 'Bash') bash.add(canonicalCommand((b.input as { command: string }).command));
    expect(count('command')).toBe(bash.size);
    expect(bash.size).toBe(41);
    // One request: "Implement spotter-gqc" (the other user texts are a task notification and tool results).
    expect(set.facts.filter((x) => x.category === 'request').map((x) => x.text)).toEqual(['Implement spotter-gqc']);
    // No TodoWrite in this session.
    expect(count('todo')).toBe(0);
    // Errors: the failed runs (exit 1/2 test and compile runs, git push exit 128), deduped by their error line.
    expect(count('error')).toBe(5);
    // Paths: the 24 files the span's Read/Write/Edit calls touched (counted independently
    // here), plus 4 named elsewhere: the generated migration under _build/ (said twice), a
    // background task's output file, and the project directory and lib/spotter_web given to Glob/Grep.
    const touched = new Set<string>();
    for (const t of turns) for (const b of t.blocks) if (b.type === 'tool_use' && ['Read', 'Write', 'Edit', 'MultiEdit'].includes(b.name)) touched.add((b.input as { file_path: string }).file_path);
    expect(touched.size).toBe(24);
    for (const p of touched) expect(find(set, 'path', p), p).toBeDefined();
    expect(count('path')).toBe(28);
    expect(count('identifier')).toBe(23);
    expect(count('number')).toBe(3);
    expect(find(set, 'command', 'git push')).toMatchObject({ ok: false, exitCode: 128, detail: 'failed, exit 128' });

    // The baseline: Claude Code's own summary of this span.
    const l = ledgerOf(set, cc.summaryText!);
    expect(l.retention).toEqual(SPOTTER_CC_RETENTION);
    // What Claude Code's summary lost, most salient first: the test command it ran five times,
    // the failed push, a named module and a layout file it read.
    expect(l.lost.slice(0, 4).map((x) => `${x.text} (${x.detail ?? ''})`)).toEqual([
      'mix test test/spotter_web/live/project_review_live_test.exs (ran 5×, ok after 4 failures)',
      'git push (failed, exit 128)',
      'Phoenix.Component ()',
      'lib/spotter_web/components/layouts/root.html.heex (read)',
    ]);
    // The push's error is fixed: `git push --set-upstream origin spotter-gqc` ran on the same
    // target (`git push`) two turns later and succeeded.
    expect(find(set, 'error', 'fatal: the current branch spotter-gqc has no upstream branch.')).toMatchObject({ fixed: true, detail: 'fixed later', targets: ['target:git push'] });
  });

  it('never yields noise on any fixture session: no timestamps, tags, request ids, uuids or escaped newlines', () => {
    for (const s of f.sessions) {
      const set = extractFacts(turnsToItems(listTurns(f.db, s.id)));
      for (const x of set.facts) {
        if (x.category === 'request' || x.category === 'error' || x.category === 'todo') continue;
        expect(x.key, `${s.sourceFile}: ${x.category}`).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}|^\/?(?:span|div|p|br)$|^(?:req|msg|toolu)_|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}|\\n/);
      }
      expect(Object.keys(ledgerOf(set, '').retention)).toEqual([...FACT_CATEGORIES]);
    }
  });
});
