/**
 * The Electron main process: a thin shell around the StudioService. It creates the
 * locked-down window (window-security.ts), serves the built renderer from the privileged
 * `app://studio/` scheme, wires the contract over IPC (ipc.ts) with importPaths limited to
 * the user's own picks and drops (path-grants.ts), links out through a confirmation
 * (external-links.ts), the native menu (menu.ts), file dialogs, and the
 * safeStorage-backed API key (settings.ts). All logic lives in services/ so browser mode
 * runs the very same code; the wiring is tested in Node against an `electron` substitute
 * (test/node/electron-shell.test.ts).
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, protocol, safeStorage, session, shell } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_CHANNEL, OPERATIONS, type StudioEvent } from '../../shared/contract.js';
import { openExternalLink } from './external-links.js';
import { APP_ENTRY_URL, APP_SCHEME, forwardEvents, registerIpcHandlers } from './ipc.js';
import { buildMenuTemplate, type ThemeSource } from './menu.js';
import { resolveNativeBinding } from './native-binding.js';
import { operationsSwitch } from './preload-args.js';
import { guardImportPaths, PathGrants, registerPathGrantChannel } from './path-grants.js';
import { allowLinkHost, readAllowedLinkHosts, readTheme, writeTheme } from '../services/settings-store.js';
import { createStudioService, type StudioService } from '../services/studio-service.js';
import { safeStorageSecretStore } from './settings.js';
import { guardWebContents, lockDownSession, SECURE_WEB_PREFERENCES, serveRendererFile } from './window-security.js';

// dist/electron/ (this bundle) holds preload.cjs and pass-worker.cjs.
const BUNDLE_DIR = path.dirname(fileURLToPath(import.meta.url));
const APP_ROOT = app.getAppPath();
const RENDERER_DIR = path.join(APP_ROOT, 'dist', 'renderer');

// Tests and power users may point the app at another profile / database.
if (process.env.COMPACTION_STUDIO_USER_DATA) app.setPath('userData', process.env.COMPACTION_STUDIO_USER_DATA);

// Must happen before 'ready': `standard` gives app://studio/ real origins and relative
// URLs, `secure` makes it a secure context like https.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]);

const trustedWebContents = new Set<number>();
/** The paths the user picked in our dialog or dropped on the window: all importPaths accepts. */
const pathGrants = new PathGrants();
let service: StudioService | null = null;
let mainWindow: BrowserWindow | null = null;

/** A followed http(s) link: the system browser, after asking for a host not yet allowed. */
async function openLink(url: string): Promise<void> {
  const db = service?.db;
  await openExternalLink(url, {
    askUser: (options) => (mainWindow ? dialog.showMessageBox(mainWindow, options) : dialog.showMessageBox(options)),
    openExternal: (u) => shell.openExternal(u),
    allowedHosts: () => (db ? readAllowedLinkHosts(db) : []),
    allowHost: (host) => {
      if (db) allowLinkHost(db, host);
    },
  });
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1440,
    height: 920,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Compaction Studio',
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#16181d' : '#ffffff',
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: path.join(BUNDLE_DIR, 'preload.cjs'), additionalArguments: [operationsSwitch(OPERATIONS)] },
  });
  const id = win.webContents.id;
  trustedWebContents.add(id);
  win.on('closed', () => {
    trustedWebContents.delete(id);
    if (mainWindow === win) mainWindow = null;
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(APP_ENTRY_URL);
  return win;
}

async function importWithDialog(): Promise<void> {
  if (!service) return;
  const options: Electron.OpenDialogOptions = {
    title: 'Import transcripts',
    properties: ['openFile', 'multiSelections'],
    filters: [
      { name: 'Transcripts', extensions: ['jsonl', 'json', 'traj', 'txt'] },
      { name: 'All files', extensions: ['*'] },
    ],
  };
  const picked = mainWindow ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
  if (picked.canceled || picked.filePaths.length === 0) return;
  // The user chose these: the window may import them again by path too.
  pathGrants.grant(picked.filePaths);
  // Through dispatch, like the window's own calls: the same validation and error mapping.
  const result = await service.dispatch('importPaths', { paths: picked.filePaths });
  if (!result.ok) dialog.showErrorBox('Import failed', result.error.message);
}

/** saveExport: ask where, write there. Returns the path, or null when the user cancels. */
async function saveWithDialog(fileName: string, content: string): Promise<string | null> {
  const options: Electron.SaveDialogOptions = { title: 'Export', defaultPath: path.join(app.getPath('documents'), path.basename(fileName)) };
  const target = mainWindow ? await dialog.showSaveDialog(mainWindow, options) : await dialog.showSaveDialog(options);
  if (target.canceled || !target.filePath) return null;
  await fs.promises.writeFile(target.filePath, content, 'utf8');
  return target.filePath;
}

function sendMenuCommand(command: Extract<StudioEvent, { type: 'menu-command' }>['command']): void {
  const event: StudioEvent = { type: 'menu-command', command };
  if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(EVENT_CHANNEL, event);
}

function installMenu(theme: ThemeSource): void {
  const template = buildMenuTemplate({
    importFiles: () => void importWithDialog(),
    exportVariant: () => sendMenuCommand('export'),
    compact: () => sendMenuCommand('compact'),
    setTheme: (next) => {
      nativeTheme.themeSource = next;
      if (service) writeTheme(service.db, next);
      installMenu(next);
    },
    currentTheme: theme,
    isMac: process.platform === 'darwin',
    development: !app.isPackaged,
  });
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

async function start(): Promise<void> {
  const nativeBinding = resolveNativeBinding({ versions: process.versions, appRoot: APP_ROOT, resourcesPath: process.resourcesPath });
  const userData = app.getPath('userData');
  service = await createStudioService({
    dbPath: process.env.COMPACTION_STUDIO_DB || path.join(userData, 'studio.db'),
    nativeBinding,
    resourcesDir: path.join(APP_ROOT, 'resources'),
    // After 'ready': on Linux safeStorage only knows its backend (keyring or basic_text) then.
    secrets: safeStorageSecretStore(userData, safeStorage),
    saveFile: saveWithDialog,
  });
  protocol.handle(APP_SCHEME, (request) => serveRendererFile(request.url, RENDERER_DIR));
  lockDownSession(session.defaultSession);
  registerPathGrantChannel(ipcMain, pathGrants, trustedWebContents);
  registerIpcHandlers(ipcMain, guardImportPaths(pathGrants, service.dispatch), trustedWebContents);
  const theme = readTheme(service.db);
  nativeTheme.themeSource = theme;
  installMenu(theme);
  mainWindow = createWindow();
  const win = mainWindow;
  forwardEvents(service.onEvent, (channel, e) => win.webContents.send(channel, e), () => !win.isDestroyed());
}

if (!app.requestSingleInstanceLock()) {
  // A second launch focuses the first window instead of opening the same database twice.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, (url) => void openLink(url)));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (service && BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });

  // Close the store (and stop pass workers) before quitting; once.
  let closing: Promise<void> | null = null;
  app.on('before-quit', (event) => {
    if (!service) return;
    event.preventDefault();
    closing ??= service.close().finally(() => {
      service = null;
      app.quit();
    });
  });

  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      dialog.showErrorBox('Compaction Studio could not start', err instanceof Error ? err.message : String(err));
      app.exit(1);
    });
}
