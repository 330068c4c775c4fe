/**
 * The opened form of a turn: every content block, with thinking and tool calls/results
 * collapsed until clicked (they are often long and rarely what one reads first).
 */
import { memo, useState } from 'react';
import type { ContentBlock, Turn } from '../../shared/model/turn.js';
import { formatBytes, formatInt, prettyJson } from '../format.js';

function Collapsible({ summary, className, children, defaultOpen = false }: { summary: React.ReactNode; className: string; children: React.ReactNode; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <div className={`block ${className}${open ? ' open' : ''}`}>
      <button type="button" className="block-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="chevron" aria-hidden="true">{open ? '▾' : '▸'}</span>
        {summary}
      </button>
      {open ? <div className="block-body">{children}</div> : null}
    </div>
  );
}

function BlockView({ block }: { block: ContentBlock }) {
  switch (block.type) {
    case 'text':
      // Claude Code writes whitespace-only text blocks between tool calls: nothing to show.
      return block.text.trim() ? <pre className="block block-text">{block.text.trim()}</pre> : null;
    case 'thinking':
      return (
        <Collapsible className="block-thinking" summary={<span>Thinking <span className="muted">· {formatInt(block.thinking.length)} chars</span></span>}>
          <pre>{block.thinking}</pre>
        </Collapsible>
      );
    case 'tool_use':
      return (
        <Collapsible className="block-tool-use" summary={<span>Tool call <b>{block.name}</b> <span className="muted mono">{block.id}</span></span>}>
          <pre className="mono">{prettyJson(block.input)}</pre>
        </Collapsible>
      );
    case 'tool_result':
      return (
        <Collapsible
          className={`block-tool-result${block.is_error ? ' is-error' : ''}`}
          summary={
            <span>
              Tool result {block.is_error ? <span className="chip chip-danger">error</span> : null} <span className="muted mono">{block.tool_use_id}</span>{' '}
              <span className="muted">· {formatInt(block.content.length)} chars</span>
            </span>
          }
        >
          <pre className="mono">{block.content}</pre>
        </Collapsible>
      );
    case 'image':
      return (
        <div className="block block-image muted">
          Image {block.mediaType}, {formatBytes(block.sizeBytes)} (kept as a placeholder, not the bytes)
        </div>
      );
    default: {
      const _exhaustive: never = block;
      return _exhaustive;
    }
  }
}

export const TurnDetails = memo(function TurnDetails({ turn }: { turn: Turn }) {
  return (
    <div className="turn-details" onClick={(e) => e.stopPropagation()}>
      <div className="turn-details-meta muted">
        <span>id {turn.id}</span>
        {turn.model ? <span>{turn.model}</span> : null}
        {turn.timestamp ? <span>{turn.timestamp}</span> : null}
        {turn.agentId ? <span>agent {turn.agentId}</span> : null}
        <span>{formatInt(turn.charCount)} chars</span>
        <span>{formatInt(turn.tokenCount)} tokens</span>
      </div>
      {turn.blocks.length === 0 ? <div className="muted">(no content)</div> : turn.blocks.map((b, i) => <BlockView key={i} block={b} />)}
    </div>
  );
});
