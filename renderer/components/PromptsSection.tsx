/**
 * The strategy panel's "Prompts" section: the model prompt templates the current strategy
 * uses (its definition's `prompts`, text in shared/summarize/prompts.ts), each marked
 * default or edited, with an editor that shows the diff against the default and can reset
 * it. Saving stores the override in the settings' summarizer (`prompts`); the prompt
 * version then changes, so the next Compact makes (or finds) another variant.
 * Beside them the strategy's fallback ladder (settings' summarizer `fallbackLadder`): its
 * design's default (off for rolling) or the user's choice, which makes a variant of its own.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { SummarizerConfig } from '../../shared/contract.js';
import { defaultFallbackLadder, STRATEGY_DEFINITIONS } from '../../shared/strategies/index.js';
import type { StrategyName } from '../../shared/strategies/types.js';
import { diffStats, lineDiff } from '../../shared/summarize/line-diff.js';
import { DEFAULT_PROMPT_TEMPLATES, normalizeOverrides, openAiPromptVersion, overridesForTemplates, PROMPT_TEMPLATE_INFO, type PromptOverrides, type PromptTemplateId } from '../../shared/summarize/prompts.js';
import { keys, useApi, useSettings } from '../api/queries.js';
import { actions } from '../state/store.js';

export const PromptsSection = memo(function PromptsSection({ strategy }: { strategy: StrategyName }) {
  const ids = STRATEGY_DEFINITIONS[strategy].prompts ?? [];
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState<PromptTemplateId | null>(null);
  // Read when the section is opened (the first paint does not wait for the settings).
  const settings = useSettings(open || editing !== null);
  if (ids.length === 0) return null;
  const summarizer = settings.data?.summarizer;
  const overrides = normalizeOverrides(summarizer?.prompts);
  const edited = ids.filter((id) => overrides[id] !== undefined).length;
  return (
    <details className="prompts-section" data-testid="prompts-section" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Prompts <span className="muted small">({ids.length}{edited > 0 ? `, ${edited} edited` : ''})</span>
      </summary>
      {summarizer && summarizer.kind !== 'openai' ? (
        <p className="muted small" data-testid="prompts-extractive-note">
          Used by the OpenAI-compatible summarizer (Settings); the extractive summarizer writes the same sections without a prompt.
        </p>
      ) : null}
      <ul className="prompt-list">
        {ids.map((id) => (
          <li key={id} className="prompt-row" data-testid={`prompt-row-${id}`}>
            <span className="prompt-label" title={PROMPT_TEMPLATE_INFO[id].usedFor}>
              {PROMPT_TEMPLATE_INFO[id].label}
            </span>
            {overrides[id] !== undefined ? <span className="badge badge-edited">edited</span> : <span className="badge">default</span>}
            <button type="button" className="btn btn-ghost btn-small" data-testid={`prompt-edit-${id}`} disabled={!summarizer} onClick={() => setEditing(id)}>
              Edit
            </button>
          </li>
        ))}
      </ul>
      {summarizer ? <FallbackLadderToggle strategy={strategy} summarizer={summarizer} /> : null}
      {summarizer ? (
        <div className="muted small" data-testid="prompts-version">
          prompt version {openAiPromptVersion(overridesForTemplates(overrides, ids))}
        </div>
      ) : null}
      {editing && summarizer ? <PromptEditor id={editing} strategyIds={ids} summarizer={summarizer} onClose={() => setEditing(null)} /> : null}
    </details>
  );
});

/** The strategy's fallback ladder: checked when its summaries retry shorter, then fall back to the extractive summary. */
function FallbackLadderToggle({ strategy, summarizer }: { strategy: StrategyName; summarizer: SummarizerConfig }) {
  const api = useApi();
  const client = useQueryClient();
  const [saving, setSaving] = useState(false);
  const fallbackDefault = defaultFallbackLadder(strategy);
  const on = summarizer.fallbackLadder?.[strategy] ?? fallbackDefault;
  const toggle = async (value: boolean) => {
    setSaving(true);
    try {
      const { [strategy]: _mine, ...others } = summarizer.fallbackLadder ?? {};
      const ladders = value === fallbackDefault ? others : { ...others, [strategy]: value };
      const result = await api.setSettings({ summarizer: { ...summarizer, fallbackLadder: Object.keys(ladders).length > 0 ? ladders : undefined } });
      client.setQueryData(keys.settings, result);
      // A choice other than the design's default is part of the variant's identity.
      void client.invalidateQueries({ queryKey: ['variant'] });
    } catch (err) {
      actions.notify({ kind: 'error', title: 'Could not save the fallback ladder', message: (err as Error).message });
    } finally {
      setSaving(false);
    }
  };
  return (
    <label
      className="check small"
      data-testid="fallback-ladder"
      title={`A failed or unusable model summary is retried at half the length, then replaced by the extractive summary where the design allows it. Off: one call, and an empty summary fails the run. Default for ${strategy}: ${fallbackDefault ? 'on' : 'off'}.`}
    >
      <input type="checkbox" checked={on} disabled={saving} onChange={(e) => void toggle(e.currentTarget.checked)} /> Fallback ladder{on === fallbackDefault ? ' (default)' : ''}
    </label>
  );
}

function PromptEditor({ id, strategyIds, summarizer, onClose }: { id: PromptTemplateId; strategyIds: readonly PromptTemplateId[]; summarizer: SummarizerConfig; onClose: () => void }) {
  const api = useApi();
  const client = useQueryClient();
  const saved = normalizeOverrides(summarizer.prompts);
  const [text, setText] = useState(saved[id] ?? DEFAULT_PROMPT_TEMPLATES[id]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const diff = useMemo(() => lineDiff(DEFAULT_PROMPT_TEMPLATES[id], text), [id, text]);
  const stats = diffStats(diff);
  const next: PromptOverrides = normalizeOverrides({ ...saved, [id]: text });
  const versionNow = openAiPromptVersion(overridesForTemplates(saved, strategyIds));
  const versionNext = openAiPromptVersion(overridesForTemplates(next, strategyIds));

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      const result = await api.setSettings({ summarizer: { ...summarizer, prompts: Object.keys(next).length > 0 ? next : undefined } });
      client.setQueryData(keys.settings, result);
      // The prompt version is part of the variant's identity.
      void client.invalidateQueries({ queryKey: ['variant'] });
      actions.notify({ kind: 'success', title: versionNext === versionNow ? 'Prompt saved' : `Prompt saved: new variant with prompt ${versionNext}` });
      onClose();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="modal-backdrop" onMouseDown={onClose}>
      <div className="modal prompt-editor" role="dialog" aria-modal="true" aria-labelledby="prompt-editor-title" data-testid="prompt-editor" onMouseDown={(e) => e.stopPropagation()}>
        <h2 id="prompt-editor-title">Prompt: {PROMPT_TEMPLATE_INFO[id].label}</h2>
        <p className="muted small">
          {PROMPT_TEMPLATE_INFO[id].usedFor}. The system message; the length rule, the prior summary and the turns are added after it. Saving changes the prompt version ({versionNow} → <b data-testid="prompt-version-next">{versionNext}</b>), so the next Compact makes a new variant and never reuses a summary of the other text.
        </p>
        <div className="prompt-editor-panes">
          <label className="prompt-pane">
            <span className="field-label">Template</span>
            <textarea data-testid="prompt-text" spellCheck={false} value={text} onChange={(e) => setText(e.currentTarget.value)} />
          </label>
          <div className="prompt-pane">
            <span className="field-label">
              Against the default{' '}
              <span className="muted small" data-testid="prompt-diff-stats">
                {stats.added === 0 && stats.removed === 0 ? 'unchanged' : `+${stats.added} −${stats.removed} lines`}
              </span>
            </span>
            <pre className="prompt-diff" data-testid="prompt-diff">
              {diff.map((d, i) => (
                <div key={i} className={d.op === '+' ? 'diff-add' : d.op === '-' ? 'diff-del' : 'diff-same'}>
                  <span className="diff-op">{d.op}</span>
                  {d.text || ' '}
                </div>
              ))}
            </pre>
          </div>
        </div>
        {error ? <div className="form-error" role="alert">{error}</div> : null}
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" data-testid="prompt-reset" disabled={text === DEFAULT_PROMPT_TEMPLATES[id]} onClick={() => setText(DEFAULT_PROMPT_TEMPLATES[id])} title="Back to the default text (saved on Save)">
            Reset to default
          </button>
          <span className="spacer" />
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn btn-primary" data-testid="prompt-save" disabled={saving || text.trim() === ''} onClick={() => void save()}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </div>
    </div>
  );
}
