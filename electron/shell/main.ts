/**
 * The Electron main process: a thin shell around the StudioService. It creates the
 * locked-down window, serves the built renderer from the privileged `app://studio/`
 * scheme, wires the contract over IPC (ipc.ts), the native menu (menu.ts), file
 * dialogs, and the safeStorage-backed API key (settings.ts). All logic lives in
 * services/ so browser mode runs the very same code.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, protocol, safeStorage, session, shell, type WebContents } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_CHANNEL, OPERATIONS, type StudioEvent } from '../../shared/contract.js';
import { APP_ENTRY_URL, APP_SCHEME, forwardEvents, isTrustedSenderUrl, registerIpcHandlers, rendererFileForUrl } from './ipc.js';
import { buildMenuTemplate, type ThemeSource } from './menu.js';
import { resolveNativeBinding } from './native-binding.js';
import { operationsSwitch } from './preload-args.js';
import { contentTypeFor } from '../server/static-files.js';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../services/csp.js';
import { readTheme, writeTheme } from '../services/settings-store.js';
import { createStudioService, type StudioService } from '../services/studio-service.js';
import { safeStorageSecretStore } from './settings.js';

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
let service: StudioService | null = null;
let mainWindow: BrowserWindow | null = null;

function isExternalHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Serves dist/renderer under app://studio/ with the window's CSP. */
function registerAppProtocol(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = rendererFileForUrl(request.url, RENDERER_DIR);
    if (!file) return new Response('not found', { status: 404 });
    try {
      const body = await fs.promises.readFile(file);
      return new Response(body, { status: 200, headers: { ...SECURITY_HEADERS, 'Content-Type': contentTypeFor(file) } });
    } catch {
      return new Response('not found', { status: 404, headers: SECURITY_HEADERS });
    }
  });
}

function lockDownSession(): void {
  const ses = session.defaultSession;
  // The header also covers anything not served by our protocol handler.
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  // No camera, geolocation, notifications...; copying to the clipboard is the one thing the window may do.
  ses.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  ses.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');
}

/** Every webContents: no navigation away from app://studio/, no new windows, no webviews. */
function guardWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (isTrustedSenderUrl(url)) return;
    event.preventDefault();
    if (isExternalHttpUrl(url)) void shell.openExternal(url);
  });
  contents.on('will-redirect', (event, url) => {
    if (!isTrustedSenderUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalHttpUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
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
    webPreferences: {
      preload: path.join(BUNDLE_DIR, 'preload.cjs'),
      additionalArguments: [operationsSwitch(OPERATIONS)],
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
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
    secrets: safeStorageSecretStore(userData, safeStorage),
    saveFile: saveWithDialog,
  });
  registerAppProtocol();
  lockDownSession();
  registerIpcHandlers(ipcMain, service.dispatch, trustedWebContents);
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
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents));
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
