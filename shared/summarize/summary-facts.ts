/**
 * A summary's text read back into hand-off notes (notes.ts): what a condensation merges and
 * what a leaf carries forward from its prior. An extractive summary's sections (sections.ts)
 * are parsed line by line, each back into its list; any other text (a model's summary, a
 * source tool's) is read as one turn would be (read-turns.ts: its words, paths, names), so
 * its content is kept as requests and identifiers rather than lost. Linear in the text.
 */
import { emptyNotes, errorKeys, type CommandNote, type ErrorNote, type FileNote, type HandoffNotes, type TodoStatus } from './notes.js';
import { readTurns } from './read-turns.js';
import { DETAIL_ARROW, FILE_CREATED, INLINE_SEPARATOR, LINE_PREFIX, STILL_OPEN, SUMMARY_SECTIONS, type SummarySection } from './sections.js';

const TITLES = new Map<string, SummarySection>(SUMMARY_SECTIONS.map((s) => [`${s}:`, s]));

/** Whether a text is an extractive summary in the sectioned form (it has at least one section title line). */
export function isSectionedSummary(text: string): boolean {
  for (const line of text.split('\n', 64)) if (TITLES.has(line)) return true;
  return false;
}

const after = (body: string, prefix: string) => (body.startsWith(prefix) ? body.slice(prefix.length) : null);

function fileNote(body: string, order: number): FileNote {
  const m = /^(.*) \(([^()]*)\)$/.exec(body);
  const path = m ? m[1] : body;
  const detail = m?.[2] ?? '';
  const n = (op: string) => Number(new RegExp(`\\b${op} (\\d+)×`).exec(detail)?.[1] ?? 0);
  return { path, created: detail.split('; ')[0] === FILE_CREATED, edited: n('edited'), written: n('written'), read: n('read'), order };
}

function commandNote(body: string, order: number): CommandNote | null {
  const at = body.lastIndexOf(`\`${DETAIL_ARROW}`);
  if (!body.startsWith('`') || at < 1) return null;
  let result = body.slice(at + 1 + DETAIL_ARROW.length);
  const runs = /^(.*) \(ran (\d+)×(?:, (\d+) failed)?\)$/.exec(result);
  if (runs) result = runs[1];
  return { command: body.slice(1, at), runs: Number(runs?.[2] ?? 1), failures: Number(runs?.[3] ?? (result.startsWith('failed') ? 1 : 0)), result, ok: !result.startsWith('failed'), order };
}

function errorNote(body: string, order: number): ErrorNote {
  const open = body.endsWith(` — ${STILL_OPEN}`);
  const at = open ? body.length - STILL_OPEN.length - 3 : body.lastIndexOf(' — resolved: ');
  const head = at > 0 ? body.slice(0, at) : body;
  const resolution = open || at < 0 ? null : body.slice(at + ' — resolved: '.length);
  const src = /^(.*) \(([^()]*(?:\([^()]*\))?[^()]*)\)$/.exec(head);
  const source = src?.[2] ?? '';
  const cmd = /^`(.*)`$/.exec(source);
  const keys = cmd ? errorKeys(cmd[1]) : source.split(' ').slice(1, 2);
  return { message: src ? src[1] : head, source, resolution, keys, order };
}

/** The notes a summary's text states (see the module comment). */
export function summaryNotes(text: string): HandoffNotes {
  if (!isSectionedSummary(text)) return readTurns([{ kind: 'summary', role: 'assistant', text }]);
  const notes = emptyNotes(1);
  let section: SummarySection | null = null;
  let order = 0;
  for (const line of text.split('\n')) {
    const title = TITLES.get(line);
    if (title) {
      section = title;
      continue;
    }
    if (!line.startsWith('- ') || section === null) continue;
    const body = line.slice(2);
    // Orders within one summary: its line order, scaled below one item.
    const at = (order++ % 1e4) / 1e4;
    switch (section) {
      case 'Goal and constraints': {
        const request = after(body, LINE_PREFIX.request);
        if (request !== null) notes.requests.push({ text: request, order: at });
        const spec = after(body, LINE_PREFIX.spec);
        if (spec !== null) {
          const colon = spec.indexOf(': ');
          for (const v of spec.slice(colon + 2).split(INLINE_SEPARATOR)) notes.constraints.push({ text: `${spec.slice(0, colon)}: ${v}`, order: at });
        }
        break;
      }
      case 'Done': {
        const commit = after(body, LINE_PREFIX.commit);
        const closed = after(body, LINE_PREFIX.closed);
        const tests = after(body, LINE_PREFIX.tests);
        if (commit !== null) notes.commits.push({ text: commit, order: at });
        else if (closed !== null) notes.closed.push({ text: closed, order: at });
        else if (tests !== null) notes.testsPassed.push({ text: tests, order: at });
        break;
      }
      case 'In progress': {
        const task = after(body, LINE_PREFIX.task);
        const state = after(body, LINE_PREFIX.state);
        const standing = after(body, LINE_PREFIX.standing);
        if (task !== null) notes.task = { text: task, order: at };
        else if (state !== null) notes.state = { text: state, order: at };
        else if (standing !== null) notes.standing = { text: standing, order: at };
        break;
      }
      case 'Next step': {
        const intent = after(body, LINE_PREFIX.intent);
        const todo = after(body, LINE_PREFIX.todo);
        const remaining = after(body, LINE_PREFIX.remaining);
        if (intent !== null) notes.intent = { text: intent, order: at };
        else if (todo !== null) {
          const now = after(todo, '(in progress) ');
          notes.todos.push({ text: now ?? todo, status: (now !== null ? 'in_progress' : 'pending') as TodoStatus });
        } else if (remaining !== null) notes.remaining.push({ text: remaining, order: at });
        break;
      }
      case 'Decisions and why':
        notes.decisions.push({ text: body, order: at });
        break;
      case 'Errors and how they were resolved':
        notes.errors.push(errorNote(body, at));
        break;
      case 'Files':
        notes.files.push(fileNote(body, at));
        break;
      case 'Commands and results': {
        const c = commandNote(body, at);
        if (c) notes.commands.push(c);
        break;
      }
      case 'Key identifiers':
        for (const id of body.split(INLINE_SEPARATOR)) if (id.trim()) notes.identifiers.push({ text: id.trim(), order: at });
        break;
      default: {
        const _exhaustive: never = section;
        return _exhaustive;
      }
    }
  }
  return notes;
}
