/**
 * The window's theme: follow the system (prefers-color-scheme; in Electron the View ›
 * Theme menu drives that same media query through nativeTheme.themeSource), or a choice
 * made in Settings (browser mode), kept in localStorage and applied as
 * `<html data-theme="light|dark">`, which theme.css honours over the media query.
 */
import { useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const THEME_KEY = 'compaction-studio.theme';
const CHANGE_EVENT = 'studio-theme-change';
const DARK_QUERY = '(prefers-color-scheme: dark)';

export function readThemeChoice(): ThemeChoice {
  try {
    const v = window.localStorage.getItem(THEME_KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Applies a choice to the document (at start, and when Settings changes it). */
export function applyTheme(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(THEME_KEY);
    else window.localStorage.setItem(THEME_KEY, choice);
  } catch {
    /* storage disabled: the choice lasts until the window closes */
  }
  applyTheme(choice);
}

/** The scheme in force: the document's choice, else the system's. */
export function currentScheme(): 'dark' | 'light' {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === 'dark' || chosen === 'light') return chosen;
  return window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

/** Calls `onChange` when the scheme may have changed (system switch or a choice in Settings). */
export function onSchemeChange(onChange: () => void): () => void {
  const mq = window.matchMedia(DARK_QUERY);
  mq.addEventListener('change', onChange);
  window.addEventListener(CHANGE_EVENT, onChange);
  return () => {
    mq.removeEventListener('change', onChange);
    window.removeEventListener(CHANGE_EVENT, onChange);
  };
}

/** The colour scheme in force, for what draws with colours read in script (charts, the minimap). */
export function useColorScheme(): 'dark' | 'light' {
  const [scheme, setScheme] = useState(currentScheme);
  useEffect(() => onSchemeChange(() => setScheme(currentScheme())), []);
  return scheme;
}
