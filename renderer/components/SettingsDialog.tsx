/**
 * Settings: the summarizer (extractive, or an OpenAI-compatible endpoint with base URL,
 * model and key), pass concurrency, the tokenizer and the user's prices (USD per million
 * tokens by model, for local or unlisted models). The key field is write-only: the
 * main process keeps the key (encrypted in Electron) and only says whether one is set.
 */
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Settings } from '../../shared/contract.js';
import { userPricesSchema, type UserPrices } from '../../shared/cost/prices.js';
import { userContextWindowsSchema, type UserContextWindows } from '../../shared/cost/windows.js';
import { PriceTable } from './PriceTable.js';
import { keys, useApi, useSettings, useTransport } from '../api/queries.js';
import { actions, useStudio } from '../state/store.js';
import { readThemeChoice, setThemeChoice, THEME_CHOICES, type ThemeChoice } from '../state/theme.js';

const THEME_LABEL: Record<ThemeChoice, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/**
 * Applied at once (not on Save): a look is judged by seeing it. Browser mode keeps it in
 * localStorage; the Electron app keeps its theme in View › Theme (stored with the app's
 * settings), which this switch then points to instead of fighting it.
 */
function ThemeSwitch() {
  const transport = useTransport();
  const [choice, setChoice] = useState<ThemeChoice>(readThemeChoice);
  if (transport.kind === 'electron') {
    return (
      <div className="theme-switch muted small" data-testid="settings-theme">
        Theme: View › Theme in the menu (System, Light, Dark).
      </div>
    );
  }
  return (
    <div className="theme-switch segmented" role="radiogroup" aria-label="Theme" data-testid="settings-theme">
      <span className="field-label">Theme</span>
      {THEME_CHOICES.map((t) => (
        <label key={t} className={`segment${choice === t ? ' active' : ''}`}>
          <input
            type="radio"
            name="theme"
            className="visually-hidden"
            value={t}
            data-testid={`theme-${t}`}
            checked={choice === t}
            onChange={() => {
              setChoice(t);
              setThemeChoice(t);
            }}
          />
          {THEME_LABEL[t]}
        </label>
      ))}
    </div>
  );
}

export function SettingsDialog() {
  const open = useStudio((s) => s.settingsOpen);
  // Read when opened, not at start (the first paint should not wait behind it).
  const settings = useSettings(open);
  const api = useApi();
  const client = useQueryClient();
  const [draft, setDraft] = useState<Settings | null>(null);
  const [apiKey, setApiKey] = useState('');
  const [clearKey, setClearKey] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [pricesText, setPricesText] = useState('{}');
  const [windowsText, setWindowsText] = useState('{}');

  useEffect(() => {
    if (open && settings.data) {
      setDraft(settings.data);
      setPricesText(JSON.stringify(settings.data.prices, null, 2));
      setWindowsText(JSON.stringify(settings.data.contextWindows ?? {}, null, 2));
      setApiKey('');
      setClearKey(false);
      setError(null);
    }
  }, [open, settings.data]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && actions.setSettingsOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  if (!open) return null;

  const save = async () => {
    if (!draft) return;
    setSaving(true);
    setError(null);
    try {
      const prices = parsePrices(pricesText);
      const contextWindows = parseWindows(windowsText);
      // Edited prompt templates (the strategy panel's Prompts section) are kept whichever kind is chosen.
      const prompts = draft.summarizer.prompts ? { prompts: draft.summarizer.prompts } : {};
      // So are the strategies' fallback ladder choices (the same section).
      if (draft.summarizer.fallbackLadder) Object.assign(prompts, { fallbackLadder: draft.summarizer.fallbackLadder });
      const summarizer = draft.summarizer.kind === 'openai' ? { kind: 'openai' as const, baseURL: draft.summarizer.baseURL || undefined, model: draft.summarizer.model || undefined, ...prompts } : { kind: 'extractive' as const, ...prompts };
      const next = await api.setSettings({ summarizer, concurrency: draft.concurrency, tokenizer: draft.tokenizer, prices, contextWindows, apiKey: clearKey ? '' : apiKey ? apiKey : undefined });
      client.setQueryData(keys.settings, next);
      // The summarizer is part of a variant's identity.
      void client.invalidateQueries({ queryKey: ['variant'] });
      actions.setSettingsOpen(false);
      actions.notify({ kind: 'success', title: 'Settings saved' });
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  };

  const s = draft;
  return (
    <div className="modal-backdrop" onMouseDown={() => actions.setSettingsOpen(false)}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="settings-title" data-testid="settings-dialog" onMouseDown={(e) => e.stopPropagation()}>
        <h2 id="settings-title">Settings</h2>
        <ThemeSwitch />
        {!s ? (
          <div className="muted">{settings.error ? `Cannot read settings: ${(settings.error as Error).message}` : 'Loading…'}</div>
        ) : (
          <form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <fieldset>
              <legend>Summarizer</legend>
              <label className="radio">
                <input type="radio" name="summarizer" checked={s.summarizer.kind === 'extractive'} onChange={() => setDraft({ ...s, summarizer: { ...s.summarizer, kind: 'extractive' } })} />
                <span>
                  <b>Extractive</b> <span className="muted">— offline and deterministic: keeps requests, decisions, paths, commands, identifiers</span>
                </span>
              </label>
              <label className="radio">
                <input type="radio" name="summarizer" checked={s.summarizer.kind === 'openai'} onChange={() => setDraft({ ...s, summarizer: { ...s.summarizer, kind: 'openai' } })} />
                <span>
                  <b>OpenAI-compatible</b> <span className="muted">— any server speaking the Chat Completions API</span>
                </span>
              </label>
              <div className={`form-grid${s.summarizer.kind === 'openai' ? '' : ' disabled'}`}>
                <label htmlFor="set-base-url">Base URL</label>
                <input id="set-base-url" type="url" placeholder="https://api.openai.com/v1" disabled={s.summarizer.kind !== 'openai'} value={s.summarizer.baseURL ?? ''} onChange={(e) => setDraft({ ...s, summarizer: { ...s.summarizer, baseURL: e.currentTarget.value } })} />
                <label htmlFor="set-model">Model</label>
                <input id="set-model" type="text" placeholder="gpt-4o-mini" disabled={s.summarizer.kind !== 'openai'} value={s.summarizer.model ?? ''} onChange={(e) => setDraft({ ...s, summarizer: { ...s.summarizer, model: e.currentTarget.value } })} />
                <label htmlFor="set-key">API key</label>
                <div className="key-field">
                  <input
                    id="set-key"
                    type="password"
                    autoComplete="off"
                    placeholder={s.hasApiKey ? '•••••••• stored (type to replace)' : 'not set (or OPENAI_API_KEY)'}
                    disabled={s.summarizer.kind !== 'openai' || clearKey}
                    value={apiKey}
                    onChange={(e) => setApiKey(e.currentTarget.value)}
                  />
                  {s.hasApiKey ? (
                    <label className="check small">
                      <input type="checkbox" checked={clearKey} onChange={(e) => setClearKey(e.currentTarget.checked)} /> forget
                    </label>
                  ) : null}
                </div>
              </div>
              {s.keyStorage ? (
                <p className="key-storage-warning small" role="alert" data-testid="settings-key-storage">
                  <b>The API key is not stored encrypted.</b> {s.keyStorage.warning}
                </p>
              ) : null}
            </fieldset>
            <fieldset>
              <legend>Passes</legend>
              <div className="form-grid">
                <label htmlFor="set-concurrency">Concurrency</label>
                <input id="set-concurrency" type="number" min={1} max={32} value={s.concurrency} onChange={(e) => setDraft({ ...s, concurrency: Math.max(1, Math.min(32, Math.round(Number(e.currentTarget.value) || 1))) })} />
                <label htmlFor="set-tokenizer">Tokenizer</label>
                <select id="set-tokenizer" value={s.tokenizer} onChange={(e) => setDraft({ ...s, tokenizer: e.currentTarget.value as Settings['tokenizer'] })}>
                  <option value="o200k_base">o200k_base (GPT-4o and later)</option>
                  <option value="cl100k_base">cl100k_base (GPT-4, GPT-3.5)</option>
                </select>
              </div>
            </fieldset>
            <fieldset>
              <legend>Prices</legend>
              <p className="muted small">
                USD per million tokens by model name, over the built-in table (a model it does not list, such as a local one, costs 0 until priced here). Used by the
                summarizer&apos;s cost, watermark&apos;s budget and every replay. Example: {'{"llama3.1:8b": {"input": 0.1, "output": 0.2}}'}; optional: cacheWrite5m, cacheWrite1h, cacheRead, provider.
              </p>
              <textarea id="set-prices" data-testid="settings-prices" rows={4} spellCheck={false} value={pricesText} onChange={(e) => {
                  setPricesText(e.currentTarget.value);
                  setError(null);
                }}
              />
              <label htmlFor="set-windows" className="small">
                Context windows (tokens by model name, over the built-in table; e.g. a local model run with a smaller num_ctx): {'{"llama3.1:8b": 8192}'}
              </label>
              <textarea id="set-windows" data-testid="settings-windows" rows={2} spellCheck={false} value={windowsText} onChange={(e) => {
                  setWindowsText(e.currentTarget.value);
                  setError(null);
                }}
              />
              <PriceTable prices={s.prices} windows={s.contextWindows ?? {}} />
            </fieldset>
            {error ? <div className="form-error" role="alert">{error}</div> : null}
            <div className="modal-actions">
              <button type="button" className="btn btn-ghost" onClick={() => actions.setSettingsOpen(false)}>
                Cancel
              </button>
              <button type="submit" className="btn btn-primary" disabled={saving}>
                {saving ? 'Saving…' : 'Save'}
              </button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}

/** The prices field: JSON checked by the contract's schema here, so the error says which model and field. */
function parsePrices(text: string): UserPrices {
  let raw: unknown;
  try {
    raw = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (e) {
    throw new Error(`Prices: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  const parsed = userPricesSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`Prices: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The context-windows field: JSON checked by the contract's schema. */
function parseWindows(text: string): UserContextWindows {
  let raw: unknown;
  try {
    raw = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (e) {
    throw new Error(`Context windows: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  const parsed = userContextWindowsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`Context windows: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}
