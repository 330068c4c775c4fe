/**
 * Sessions in the store: title, format, turns and tokens, compactions the source tool
 * recorded; subagent sessions nested under their parent. Delete asks inline (a native
 * confirm() would block the window and is invisible to end-to-end tests).
 */
import { memo, useMemo, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SessionInfo } from '../../shared/contract.js';
import { keys, useApi, useSessions } from '../api/queries.js';
import { formatCompact, formatInt } from '../format.js';
import { useDebounced } from '../hooks/use-debounced.js';
import { actions, studioStore, useStudio } from '../state/store.js';

const studioSessionId = () => studioStore.getState().sessionId;

function SessionItem({ session, depth, selected, onSelect, onDelete }: { session: SessionInfo; depth: number; selected: boolean; onSelect(id: number): void; onDelete(s: SessionInfo): Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <li
      className={`session-item${selected ? ' selected' : ''}${depth > 0 ? ' child' : ''}`}
      data-testid="session-item"
      data-session-id={session.id}
      aria-selected={selected}
      onClick={() => onSelect(session.id)}
      onKeyDown={(e) => e.key === 'Enter' && onSelect(session.id)}
      tabIndex={0}
      title={`${session.title}\n${session.sourceFile}`}
    >
      <div className="session-title">
        {depth > 0 ? <span className="muted">↳ </span> : null}
        {session.agentId && depth > 0 ? `agent ${session.agentId.slice(0, 10)}` : session.title}
      </div>
      <div className="session-meta">
        <span className="chip">{session.format}</span>
        <span className="mono">{formatInt(session.turns)}</span> turns
        <span className="dot">·</span>
        <span className="mono">{formatCompact(session.tokens)}</span> tok
        {session.externalCompactions > 0 ? (
          <span className="chip chip-external" title="Compactions recorded by the source tool">
            {session.externalCompactions} compaction{session.externalCompactions === 1 ? '' : 's'}
          </span>
        ) : null}
      </div>
      {confirming ? (
        <div className="session-confirm" onClick={(e) => e.stopPropagation()}>
          <span>Delete this session{depth === 0 ? ' and its subagents' : ''}?</span>
          <button type="button" className="btn btn-small btn-danger" data-testid="confirm-delete" onClick={() => void onDelete(session).finally(() => setConfirming(false))}>
            Delete
          </button>
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="session-delete btn-icon"
          data-testid="delete-session"
          aria-label={`Delete ${session.title}`}
          title="Delete session"
          onClick={(e) => {
            e.stopPropagation();
            setConfirming(true);
          }}
        >
          ✕
        </button>
      )}
    </li>
  );
}

/** FTS snippets mark matches with [ ]: shown as <mark>. */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/\[([^\]]*)\]/);
  return (
    <>
      {parts.map((p, i) => (i % 2 === 1 ? <mark key={i}>{p}</mark> : <span key={i}>{p}</span>))}
    </>
  );
}

/** Full-text hits over every session's turns and, beside them, every variant's summaries. */
function TurnSearchResults({ query, sessions }: { query: string; sessions: readonly SessionInfo[] }) {
  const api = useApi();
  const hits = useQuery({ queryKey: ['search', query], queryFn: () => api.search({ query }), staleTime: 30_000 });
  const titles = useMemo(() => new Map(sessions.map((s) => [s.id, s.agentId && s.parentSessionId !== null ? `agent ${s.agentId.slice(0, 10)}` : s.title])), [sessions]);
  const turns = hits.data?.turns;
  const summaries = hits.data?.summaries;
  return (
    <section className="search-results" aria-label="Turns and summaries matching the search">
      <div className="sidebar-head">
        <span className="section-title">Turns</span>
        <span className="muted small">{turns ? (turns.length >= 50 ? '50+' : formatInt(turns.length)) : ''}</span>
      </div>
      {hits.error ? <div className="sidebar-error">{(hits.error as Error).message}</div> : null}
      {turns && turns.length === 0 ? <div className="empty-state small">No turn contains “{query}”.</div> : null}
      <ul className="hit-list">
        {turns?.map((h) => (
          <li key={h.turnId}>
            <button
              type="button"
              className="hit"
              data-testid="search-hit"
              onClick={() => {
                if (studioSessionId() !== h.sessionId) actions.selectSession(h.sessionId);
                actions.focusTurn(h.position);
              }}
            >
              <span className="hit-where">
                <span className="hit-session">{titles.get(h.sessionId) ?? `session ${h.sessionId}`}</span>
                <span className="mono muted">#{h.position}</span>
                <span className={`role-badge role-${h.role}`}>{h.role}</span>
              </span>
              <span className="hit-snippet">
                <Snippet text={h.snippet} />
              </span>
            </button>
          </li>
        ))}
      </ul>
      <div className="sidebar-head">
        <span className="section-title">Summaries</span>
        <span className="muted small">{summaries ? (summaries.length >= 50 ? '50+' : formatInt(summaries.length)) : ''}</span>
      </div>
      {summaries && summaries.length === 0 ? <div className="empty-state small" data-testid="search-summary-none">No summary contains “{query}”: if the turns do, it did not survive.</div> : null}
      <ul className="hit-list">
        {summaries?.map((h) => (
          <li key={h.summaryId}>
            <button
              type="button"
              className="hit"
              data-testid="search-summary-hit"
              data-summary-id={h.summaryId}
              data-variant-id={h.variantId}
              title={`${h.kind} summary s${h.summaryId} of turns ${h.firstPosition}–${h.lastPosition}, variant #${h.variantId}${h.replayRunId !== null ? `, made by replay #${h.replayRunId} at call ${h.callIndex}` : ''}: open it`}
              onClick={() => {
                if (studioSessionId() !== h.sessionId) actions.selectSession(h.sessionId);
                actions.loadVariant({ id: h.variantId, strategy: h.strategy, params: h.params });
                if (h.replayRunId !== null && h.callIndex !== null) {
                  // A replay's summary: its firing on the Timeline (the ledger of that firing shows there).
                  actions.setTab('timeline');
                  actions.selectTimelineCall(h.callIndex);
                } else {
                  actions.setTab('dag');
                  actions.select({ kind: 'node', nodeId: `s${h.summaryId}` });
                }
                actions.scrollTo(h.firstPosition);
              }}
            >
              <span className="hit-where">
                <span className="hit-session">{titles.get(h.sessionId) ?? `session ${h.sessionId}`}</span>
                <span className="mono muted">
                  {h.variantName ?? `#${h.variantId} ${h.strategy}`} · s{h.summaryId}
                </span>
                <span className={`chip chip-${h.depth > 0 ? 'condensed' : 'leaf'}`}>{h.kind}</span>
                <span className="mono muted">{h.replayRunId !== null ? `replay call ${h.callIndex}` : h.compacted ? 'folded' : 'pass'}</span>
              </span>
              <span className="hit-snippet">
                <Snippet text={h.snippet} />
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export const SessionsSidebar = memo(function SessionsSidebar() {
  const sessions = useSessions();
  const selectedId = useStudio((s) => s.sessionId);
  const api = useApi();
  const client = useQueryClient();
  const [filter, setFilter] = useState('');
  // Turn search starts at three characters, once typing pauses.
  const searchQuery = useDebounced(filter.trim(), 250);

  // Parents in store order, each followed by its subagent sessions.
  const ordered = useMemo(() => {
    const list = sessions.data ?? [];
    const f = filter.trim().toLowerCase();
    const matches = (s: SessionInfo) => !f || s.title.toLowerCase().includes(f) || s.format.includes(f) || s.sourceFile.toLowerCase().includes(f);
    const children = new Map<number, SessionInfo[]>();
    for (const s of list) if (s.parentSessionId !== null) children.set(s.parentSessionId, [...(children.get(s.parentSessionId) ?? []), s]);
    const ids = new Set(list.map((s) => s.id));
    const out: Array<{ session: SessionInfo; depth: number }> = [];
    for (const s of list) {
      if (s.parentSessionId !== null && ids.has(s.parentSessionId)) continue;
      const kids = (children.get(s.id) ?? []).filter(matches);
      if (!matches(s) && kids.length === 0) continue;
      out.push({ session: s, depth: 0 });
      for (const k of kids) out.push({ session: k, depth: 1 });
    }
    return out;
  }, [sessions.data, filter]);

  const onDelete = async (s: SessionInfo) => {
    try {
      await api.deleteSession({ sessionId: s.id });
      if (selectedId === s.id) actions.selectSession(null);
      actions.notify({ kind: 'info', title: `Deleted ${s.title}` });
    } catch (err) {
      actions.notify({ kind: 'error', title: `Could not delete ${s.title}`, message: (err as Error).message });
    }
    await client.invalidateQueries({ queryKey: keys.sessions });
  };

  return (
    <nav className="sidebar" aria-label="Sessions">
      <div className="sidebar-head">
        <span className="section-title">Sessions</span>
        <span className="muted small">{sessions.data ? formatInt(sessions.data.length) : ''}</span>
      </div>
      <input className="sidebar-filter" data-testid="search-input" type="search" placeholder="Search sessions and turns" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} aria-label="Search sessions and turns" />
      {sessions.error ? <div className="sidebar-error">Cannot list sessions: {(sessions.error as Error).message}</div> : null}
      {sessions.data && sessions.data.length === 0 ? <div className="empty-state small">No sessions yet. Import a transcript (Claude Code, OpenAI, Anthropic, OpenHands, SWE-agent, ShareGPT, Codex) or drop it on the window.</div> : null}
      <div className="sidebar-scroll">
        <ul className="session-list">
          {ordered.map(({ session, depth }) => (
            <SessionItem key={session.id} session={session} depth={depth} selected={session.id === selectedId} onSelect={actions.selectSession} onDelete={onDelete} />
          ))}
        </ul>
        {searchQuery.length >= 3 ? <TurnSearchResults query={searchQuery} sessions={sessions.data ?? []} /> : null}
      </div>
    </nav>
  );
});
