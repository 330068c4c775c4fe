/**
 * The native menu as a template (File: Import…, Export…, Quit; Edit; View: theme,
 * reload/devtools in development). A pure function of the handlers, so main.ts only
 * calls Menu.buildFromTemplate on it; type-only Electron imports.
 */
import type { MenuItemConstructorOptions } from 'electron';

export type ThemeSource = 'system' | 'light' | 'dark';
export const THEME_SOURCES: readonly ThemeSource[] = ['system', 'light', 'dark'];

export interface MenuHandlers {
  importFiles(): void;
  exportVariant(): void;
  compact(): void;
  setTheme(theme: ThemeSource): void;
  currentTheme: ThemeSource;
  isMac: boolean;
  /** Reload and developer tools only when not packaged. */
  development: boolean;
}

const THEME_LABELS: Record<ThemeSource, string> = { system: 'Follow System', light: 'Light', dark: 'Dark' };

export function buildMenuTemplate(h: MenuHandlers): MenuItemConstructorOptions[] {
  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      { label: 'Import…', accelerator: 'CmdOrCtrl+O', click: () => h.importFiles() },
      { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => h.exportVariant() },
      { type: 'separator' },
      { label: 'Compact', accelerator: 'CmdOrCtrl+Enter', click: () => h.compact() },
      { type: 'separator' },
      h.isMac ? { role: 'close' } : { role: 'quit', label: 'Quit' },
    ],
  };
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      {
        label: 'Theme',
        submenu: THEME_SOURCES.map((theme) => ({ label: THEME_LABELS[theme], type: 'radio' as const, checked: theme === h.currentTheme, click: () => h.setTheme(theme) })),
      },
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      ...(h.development ? ([{ type: 'separator' }, { role: 'reload' }, { role: 'toggleDevTools' }] as MenuItemConstructorOptions[]) : []),
    ],
  };
  const template: MenuItemConstructorOptions[] = [file, { role: 'editMenu' }, view, { role: 'windowMenu' }];
  // macOS puts Quit under the application menu.
  if (h.isMac) template.unshift({ role: 'appMenu' });
  return template;
}
