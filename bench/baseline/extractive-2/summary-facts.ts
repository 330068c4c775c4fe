/**
 * The facts of a summary whose facts were not kept beside it (an older row, a cache hit,
 * a model summary): read back from its text. An extractive summary's sections
 * (sections.ts) are parsed line by line into facts of their category with their result;
 * any other text goes through extractFacts as one summary item (paths, `$ cmd` lines,
 * identifiers, numbers with units). Linear in the text's length.
 */
import { newFact } from '../../../shared/facts/fact.js';
import { extractFacts, numberKey } from '../../../shared/facts/extract.js';
import { detailOf } from '../../../shared/facts/extract.js';
import { canonicalCommand } from '../../../shared/facts/commands.js';
import { NUMBER_WITH_UNIT_RE } from '../../../shared/facts/patterns.js';
import type { Decision, Fact, FactCategory, FactSet, PathAction, TodoStatus } from '../../../shared/facts/types.js';
import { DETAIL_ARROW, FIGURES_PREFIX, INLINE_SEPARATOR, NAMES_PREFIX, OPEN_REQUEST_ABOVE, STATE_PREFIX, SUMMARY_SECTIONS, type SummarySection } from './sections.js';

const TITLES = new Map<string, SummarySection>(SUMMARY_SECTIONS.map((s) => [`${s}:`, s]));

/** Whether a text is an extractive summary in the sectioned form (it has at least one section title line). */
export function isSectionedSummary(text: string): boolean {
  for (const line of text.split('\n', 64)) if (TITLES.has(line)) return true;
  return false;
}

/** Splits "entry (detail)" at its last " (" when the line ends with ")". */
function entryAndParen(s: string): [string, string | undefined] {
  if (!s.endsWith(')')) return [s, undefined];
  const at = s.lastIndexOf(' (');
  return at > 0 ? [s.slice(0, at), s.slice(at + 2, -1)] : [s, undefined];
}

function actionsOf(detail: string | undefined): Partial<Record<PathAction, number>> {
  const out: Partial<Record<PathAction, number>> = {};
  for (const m of (detail ?? '').matchAll(/\b(created|edited|deleted|read|mentioned)(?: (\d+)×)?/g)) out[m[1] as PathAction] = Number(m[2] ?? 1);
  if (Object.keys(out).length === 0) out.mentioned = 1;
  return out;
}

/** The facts an extractive summary's text states (see the module comment). */
export function summaryFacts(text: string): FactSet {
  if (!isSectionedSummary(text)) return extractFacts([{ kind: 'summary', role: 'summary', text }]);
  const facts = new Map<string, Fact>();
  const decisions: Decision[] = [];
  const add = (category: FactCategory, key: string, t: string, extra: Partial<Fact> = {}) => {
    if (key.length === 0) return;
    const id = `${category}\u0000${key}`;
    if (facts.has(id)) return;
    facts.set(id, Object.assign(newFact(category, key, t, 1, 0, 0, category === 'request'), extra));
  };
  let section: SummarySection | null = null;
  for (const line of text.split('\n')) {
    const title = TITLES.get(line);
    if (title) {
      section = title;
      continue;
    }
    if (!line.startsWith('- ') || section === null) continue;
    const body = line.slice(2);
    const arrow = body.lastIndexOf(DETAIL_ARROW);
    const [head, tail] = arrow > 0 ? [body.slice(0, arrow), body.slice(arrow + DETAIL_ARROW.length)] : [body, undefined];
    switch (section) {
      case 'Goal and requests':
        add('request', body.toLowerCase(), body);
        break;
      case 'State now': {
        for (const [status, prefix] of Object.entries(STATE_PREFIX)) {
          if (!body.startsWith(prefix)) continue;
          const t = body.slice(prefix.length);
          if (status === 'asked') {
            if (t !== OPEN_REQUEST_ABOVE) add('request', t.toLowerCase(), t);
          }
          else add('todo', t.toLowerCase(), t, { status: status as TodoStatus });
          break;
        }
        break;
      }
      case 'Files': {
        const [p, detail] = entryAndParen(body);
        add('path', p, p, { actions: actionsOf(detail) });
        break;
      }
      case 'Commands and results': {
        const key = canonicalCommand(head);
        const failed = tail !== undefined && /\bfailed\b/.test(tail) && !/\bok\b/.test(tail);
        const exit = tail ? /exit (-?\d+)/.exec(tail) : null;
        add('command', key, key, tail === undefined ? {} : { ok: !failed, exitCode: exit ? Number(exit[1]) : null, failures: /failure|failed/.test(tail) ? 1 : undefined });
        break;
      }
      case 'Errors':
        add('error', head.toLowerCase(), head, { fixed: tail === 'fixed later' });
        break;
      case 'Decisions':
        decisions.push({ key: body.toLowerCase(), text: body, firstItem: 0, lastItem: 0, mentions: 1, userNamed: false });
        break;
      case 'Key identifiers and figures':
        if (body.startsWith(NAMES_PREFIX)) for (const id of body.slice(NAMES_PREFIX.length).split(INLINE_SEPARATOR)) add('identifier', id.trim(), id.trim());
        else if (body.startsWith(FIGURES_PREFIX)) {
          for (const n of body.slice(FIGURES_PREFIX.length).split(INLINE_SEPARATOR)) {
            const m = new RegExp(NUMBER_WITH_UNIT_RE.source).exec(n.trim());
            if (m?.[3]) add('number', m[3], m[3]);
            else if (m) add('number', numberKey(m[1], m[2]), n.trim());
          }
        }
        break;
      default: {
        const _exhaustive: never = section;
        return _exhaustive;
      }
    }
  }
  const out = [...facts.values()];
  for (const f of out) f.detail = detailOf(f);
  return { facts: out, itemCount: 1, decisions };
}
