/**
 * A stand-in for the `electron` module, for loading the real shell (electron/shell/main.ts,
 * preload.ts) under Vitest where the Electron binary cannot run (TOOLCHAIN.md: it cannot be
 * downloaded here). Each piece is typed against electron.d.ts (`satisfies Partial<...>`,
 * `implements Partial<...>`), so a call the shell makes with a wrong name or shape fails
 * `tsc`, and behaves like Electron where the shell relies on it: `ipcMain.handle` throws on
 * a second handler for a channel, a new BrowserWindow emits app 'web-contents-created'.
 * Everything the shell does is recorded in `recorded` for the tests to inspect and drive.
 *
 * Use: `vi.mock('electron', async () => (await import('../helpers/electron-substitute.js')).electronSubstitute)`.
 */
import { EventEmitter } from 'node:events';
import type {
  App,
  BrowserWindow as ElectronBrowserWindow,
  BrowserWindowConstructorOptions,
  ContextBridge,
  Dialog,
  HandlerDetails,
  IpcMain,
  IpcMainInvokeEvent,
  IpcRenderer,
  Menu as ElectronMenu,
  MenuItemConstructorOptions,
  MessageBoxOptions,
  MessageBoxReturnValue,
  NativeTheme,
  OpenDialogOptions,
  OpenDialogReturnValue,
  Protocol,
  SafeStorage,
  SaveDialogOptions,
  SaveDialogReturnValue,
  Session,
  Shell,
  WebContents,
  WebUtils,
  WindowOpenHandlerResponse,
} from 'electron';

type ElectronModule = typeof import('electron');
type InvokeHandler = Parameters<IpcMain['handle']>[1];
type ProtocolHandler = Parameters<Protocol['handle']>[1];
type HeadersListener = Parameters<Session['webRequest']['onHeadersReceived']>[0];
type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;
type WindowOpenHandler = (details: HandlerDetails) => WindowOpenHandlerResponse;
type Listener = (...args: never[]) => unknown;

let nextWebContentsId = 1;

/** One webContents: an EventEmitter (will-navigate, ...) that records sends and its window-open handler. */
// Event methods come from EventEmitter (Electron's WebContents is one); the rest is typed from electron.d.ts.
export class FakeWebContents extends EventEmitter implements Pick<WebContents, 'id' | 'send' | 'setWindowOpenHandler'> {
  readonly id = nextWebContentsId++;
  windowOpenHandler: WindowOpenHandler | null = null;
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];

  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }

  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.windowOpenHandler = handler;
  }
}

/** The app's EventEmitter, separate from `app` so `app` satisfies Partial<App> without extra members. */
const appEvents = new EventEmitter();

export class FakeBrowserWindow extends EventEmitter implements Pick<ElectronBrowserWindow, 'loadURL' | 'show' | 'focus' | 'restore' | 'isMinimized' | 'isDestroyed' | 'close'> {
  static readonly instances: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly loadedUrls: string[] = [];
  private destroyed = false;

  constructor(readonly options: BrowserWindowConstructorOptions = {}) {
    super();
    FakeBrowserWindow.instances.push(this);
    // Electron emits this for every webContents it creates, the window's own among them.
    appEvents.emit('web-contents-created', { preventDefault() {} }, this.webContents);
  }

  static getAllWindows(): FakeBrowserWindow[] {
    return FakeBrowserWindow.instances.filter((w) => !w.destroyed);
  }

  async loadURL(url: string): Promise<void> {
    this.loadedUrls.push(url);
  }

  show(): void {}
  focus(): void {}
  restore(): void {}
  isMinimized(): boolean {
    return false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  close(): void {
    this.destroyed = true;
    this.emit('closed');
  }
}

/** What the shell did, and the answers the substitute gives (tests set those). */
export const recorded = {
  appPath: '/nonexistent',
  paths: new Map<string, string>(),
  quitCalls: 0,
  exitCodes: [] as number[],
  privilegedSchemes: [] as Array<Parameters<Protocol['registerSchemesAsPrivileged']>[0]>,
  protocolHandlers: new Map<string, ProtocolHandler>(),
  invokeHandlers: new Map<string, InvokeHandler>(),
  /** ipcMain.on listeners by channel (send / sendSync). */
  ipcListeners: new Map<string, Listener[]>(),
  headersListener: null as HeadersListener | null,
  permissionRequestHandler: null as PermissionRequestHandler | null,
  permissionCheckHandler: null as PermissionCheckHandler | null,
  menuTemplates: [] as MenuItemConstructorOptions[][],
  openedExternally: [] as string[],
  /** Every confirmation asked; `messageBoxAnswers` are given in order (then Cancel). */
  messageBoxes: [] as MessageBoxOptions[],
  messageBoxAnswers: [] as Array<Pick<MessageBoxReturnValue, 'response' | 'checkboxChecked'>>,
  /** The next open dialog's picks (canceled when empty). */
  openDialogPicks: [] as string[],
  errorBoxes: [] as Array<{ title: string; content: string }>,
  storageBackend: 'gnome_libsecret' as ReturnType<SafeStorage['getSelectedStorageBackend']>,
  encryptionAvailable: true,
  /** The preload's side. */
  exposed: new Map<string, unknown>(),
  invoked: [] as Array<{ channel: string; args: unknown[] }>,
  sentSync: [] as Array<{ channel: string; args: unknown[] }>,
  /** What main answers a sendSync with. */
  sendSyncAnswer: true as unknown,
  rendererListeners: new Map<string, Listener[]>(),
  /** What webUtils.getPathForFile answers. */
  pathForFile: '' as string,
};

function addListener(map: Map<string, Listener[]>, channel: string, listener: Listener): void {
  map.set(channel, [...(map.get(channel) ?? []), listener]);
}

export const app = {
  getAppPath: () => recorded.appPath,
  getPath: (name: Parameters<App['getPath']>[0]) => recorded.paths.get(name) ?? `/nonexistent/${name}`,
  setPath: (name: string, value: string) => {
    recorded.paths.set(name, value);
  },
  requestSingleInstanceLock: () => true,
  isPackaged: false,
  // Not chainable here (the shell never chains): returning `app` would make its type circular.
  on: ((event: string, listener: Listener) => {
    appEvents.on(event, listener as (...args: unknown[]) => void);
  }) as unknown as App['on'],
  whenReady: () => Promise.resolve(),
  quit: () => {
    recorded.quitCalls++;
  },
  exit: (code?: number) => {
    recorded.exitCodes.push(code ?? 0);
  },
} satisfies Partial<App>;

/** Emits an app event (web-contents-created, before-quit, ...) as Electron would. */
export function emitAppEvent(event: string, ...args: unknown[]): void {
  appEvents.emit(event, ...args);
}

export const ipcMain = {
  handle: (channel: string, listener: InvokeHandler) => {
    // Electron's own rule: one handler per channel.
    if (recorded.invokeHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    recorded.invokeHandlers.set(channel, listener);
  },
  removeHandler: (channel: string) => {
    recorded.invokeHandlers.delete(channel);
  },
  on: ((channel: string, listener: Listener) => {
    addListener(recorded.ipcListeners, channel, listener);
  }) as unknown as IpcMain['on'],
  removeAllListeners: ((channel?: string) => {
    if (channel) recorded.ipcListeners.delete(channel);
    else recorded.ipcListeners.clear();
  }) as unknown as IpcMain['removeAllListeners'],
} satisfies Partial<IpcMain>;

export const protocol = {
  registerSchemesAsPrivileged: (schemes: Parameters<Protocol['registerSchemesAsPrivileged']>[0]) => {
    recorded.privilegedSchemes.push(schemes);
  },
  handle: (scheme: string, handler: ProtocolHandler) => {
    recorded.protocolHandlers.set(scheme, handler);
  },
} satisfies Partial<Protocol>;

const defaultSession = {
  webRequest: {
    onHeadersReceived: ((listener: HeadersListener | null) => {
      recorded.headersListener = listener;
    }) as Session['webRequest']['onHeadersReceived'],
  } as Session['webRequest'],
  setPermissionRequestHandler: (handler: PermissionRequestHandler | null) => {
    recorded.permissionRequestHandler = handler;
  },
  setPermissionCheckHandler: (handler: PermissionCheckHandler | null) => {
    recorded.permissionCheckHandler = handler;
  },
} satisfies Partial<Session>;

export const session = { defaultSession: defaultSession as unknown as Session };

function nextAnswer(): Pick<MessageBoxReturnValue, 'response' | 'checkboxChecked'> {
  return recorded.messageBoxAnswers.shift() ?? { response: 1, checkboxChecked: false };
}

export const dialog = {
  // Electron's overloads: (window, options) or (options).
  showMessageBox: (async (a: unknown, b?: MessageBoxOptions) => {
    recorded.messageBoxes.push((b ?? a) as MessageBoxOptions);
    return nextAnswer();
  }) as Dialog['showMessageBox'],
  showOpenDialog: (async (_a: unknown, _b?: OpenDialogOptions): Promise<OpenDialogReturnValue> => {
    const filePaths = recorded.openDialogPicks;
    recorded.openDialogPicks = [];
    return { canceled: filePaths.length === 0, filePaths };
  }) as Dialog['showOpenDialog'],
  showSaveDialog: (async (): Promise<SaveDialogReturnValue> => ({ canceled: true, filePath: '' })) as (options: SaveDialogOptions) => Promise<SaveDialogReturnValue>,
  showErrorBox: (title: string, content: string) => {
    recorded.errorBoxes.push({ title, content });
  },
} satisfies Partial<Dialog>;

export const shell = {
  openExternal: async (url: string) => {
    recorded.openedExternally.push(url);
  },
} satisfies Partial<Shell>;

/** A reversible transform standing in for the OS keychain. */
export const safeStorage = {
  isEncryptionAvailable: () => recorded.encryptionAvailable,
  encryptString: (plain: string) => Buffer.from(`enc:${Buffer.from(plain).toString('base64')}`),
  decryptString: (encrypted: Buffer) => Buffer.from(encrypted.toString().slice(4), 'base64').toString(),
  getSelectedStorageBackend: () => recorded.storageBackend,
} satisfies Partial<SafeStorage>;

export const Menu = {
  buildFromTemplate: (template: MenuItemConstructorOptions[]) => {
    recorded.menuTemplates.push(template);
    return {} as ElectronMenu;
  },
  setApplicationMenu: (_menu: ElectronMenu | null) => {},
} satisfies Partial<typeof ElectronMenu>;

export const nativeTheme = { shouldUseDarkColors: false, themeSource: 'system' } satisfies Partial<NativeTheme>;

// The preload's side.
export const contextBridge = {
  exposeInMainWorld: (apiKey: string, api: unknown) => {
    if (recorded.exposed.has(apiKey)) throw new Error(`Cannot bind an API on top of an existing property on the window object: ${apiKey}`);
    recorded.exposed.set(apiKey, api);
  },
} satisfies Partial<ContextBridge>;

export const ipcRenderer = {
  invoke: async (channel: string, ...args: unknown[]) => {
    recorded.invoked.push({ channel, args });
    return { ok: true, value: `answer of ${channel}` };
  },
  sendSync: (channel: string, ...args: unknown[]) => {
    recorded.sentSync.push({ channel, args });
    return recorded.sendSyncAnswer;
  },
  on: ((channel: string, listener: Listener) => {
    addListener(recorded.rendererListeners, channel, listener);
  }) as unknown as IpcRenderer['on'],
  removeListener: ((channel: string, listener: Listener) => {
    recorded.rendererListeners.set(
      channel,
      (recorded.rendererListeners.get(channel) ?? []).filter((l) => l !== listener),
    );
  }) as unknown as IpcRenderer['removeListener'],
} satisfies Partial<IpcRenderer>;

export const webUtils = {
  getPathForFile: (_file: File) => recorded.pathForFile,
} satisfies Partial<WebUtils>;

/** The module `vi.mock('electron')` returns: only names the real module exports. */
export const electronSubstitute = {
  app,
  BrowserWindow: FakeBrowserWindow,
  contextBridge,
  dialog,
  ipcMain,
  ipcRenderer,
  Menu,
  nativeTheme,
  protocol,
  safeStorage,
  session,
  shell,
  webUtils,
} satisfies { [K in keyof ElectronModule]?: unknown };

/** An invoke event from a frame: our window's main frame unless told otherwise. */
export function invokeEvent(sender: { webContentsId: number; url: string; subframe?: boolean }): IpcMainInvokeEvent {
  const parent = sender.subframe ? { url: 'app://studio/index.html' } : null;
  return { sender: { id: sender.webContentsId }, senderFrame: { url: sender.url, parent } } as unknown as IpcMainInvokeEvent;
}
