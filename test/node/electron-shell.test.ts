/**
 * The Electron shell, run where the Electron binary cannot: the REAL electron/shell/main.ts
 * and preload.ts loaded with an `electron` substitute typed against electron.d.ts
 * (test/helpers/electron-substitute.ts), over a real studio service on a real SQLite file
 * and the real fixture transcripts. What Electron itself does (Chromium enforcing the
 * webPreferences, the CSP, the sandbox) is the smoke test's job on a machine with the binary
 * (test/e2e/electron-smoke.spec.ts); here we check that the shell asks for all of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { DebugLogger } from 'builder-util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_CHANNEL, OPERATIONS, PATH_GRANT_CHANNEL, operationChannel, type Envelope, type PreloadBridge, type Settings } from '../../shared/contract.js';
import { CONTENT_SECURITY_POLICY, SECURITY_HEADERS } from '../../electron/services/csp.js';
import { API_KEY_FILE } from '../../electron/shell/settings.js';
import { operationsSwitch } from '../../electron/shell/preload-args.js';
import { openDatabase } from '../../electron/store/db.js';
import { readAllowedLinkHosts } from '../../electron/services/settings-store.js';
import { FIXTURES, ROOT } from '../helpers/fixture-sessions.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';
import { emitAppEvent, FakeBrowserWindow, FakeWebContents, invokeEvent, recorded } from '../helpers/electron-substitute.js';

vi.mock('electron', async () => (await import('../helpers/electron-substitute.js')).electronSubstitute);

const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');
const CODEX = path.join(FIXTURES, 'codex/rollout-2025-09-30T09-12-01-0199a3c2-5b7e-7d40-9a61-3f2e8c1d4b55.jsonl');

let tmp: TempDir;
let window: FakeBrowserWindow;
let dbPath: string;
let userData: string;

beforeAll(async () => {
  tmp = tempDir('studio-shell-');
  // A built renderer for the app:// protocol to serve.
  const renderer = path.join(tmp.dir, 'app', 'dist', 'renderer');
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Compaction Studio</title>');
  fs.writeFileSync(path.join(renderer, 'assets', 'index-abc.js'), 'console.log(1)');
  fs.writeFileSync(path.join(tmp.dir, 'app', 'secret.txt'), 'outside the renderer folder');
  recorded.appPath = path.join(tmp.dir, 'app');
  userData = path.join(tmp.dir, 'userData');
  dbPath = path.join(userData, 'studio.db');
  vi.stubEnv('COMPACTION_STUDIO_USER_DATA', userData);
  vi.stubEnv('COMPACTION_STUDIO_DB', dbPath);
  vi.stubEnv('OPENAI_API_KEY', '');
  await import('../../electron/shell/main.js');
  // start() runs after whenReady(): the window is its last step.
  await vi.waitFor(() => expect(FakeBrowserWindow.instances.length).toBe(1), { timeout: 20_000 });
  window = FakeBrowserWindow.instances[0];
});

afterAll(async () => {
  // Quitting closes the service (the store, pass workers) before the app quits.
  const quitEvent = { preventDefault: vi.fn() };
  emitAppEvent('before-quit', quitEvent);
  expect(quitEvent.preventDefault).toHaveBeenCalledTimes(1);
  await vi.waitFor(() => expect(recorded.quitCalls).toBe(1));
  vi.unstubAllEnvs();
  tmp.cleanup();
});

function ours(url = 'app://studio/index.html') {
  return invokeEvent({ webContentsId: window.webContents.id, url });
}

async function invoke(op: string, input: unknown, event = ours()): Promise<Envelope<unknown>> {
  const handler = recorded.invokeHandlers.get(operationChannel(op));
  if (!handler) throw new Error(`no handler for ${op}`);
  return (await handler(event, input)) as Envelope<unknown>;
}

function valueOf<T>(envelope: Envelope<unknown>): T {
  if (!envelope.ok) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.value as T;
}

/** Main's end of the preload's path grant (sendSync): returns `event.returnValue`. */
function grantPath(p: unknown, event = ours()): unknown {
  const listeners = recorded.ipcListeners.get(PATH_GRANT_CHANNEL) ?? [];
  expect(listeners).toHaveLength(1);
  const syncEvent = { ...event, returnValue: undefined as unknown };
  (listeners[0] as (e: unknown, arg: unknown) => void)(syncEvent, p);
  return syncEvent.returnValue;
}

describe('the IPC wiring', () => {
  it('registers exactly one ipcMain.handle per contract operation and nothing else', () => {
    // The substitute throws on a second handler for a channel, as Electron does.
    expect([...recorded.invokeHandlers.keys()].sort()).toEqual(OPERATIONS.map(operationChannel).sort());
    expect(recorded.invokeHandlers.size).toBe(OPERATIONS.length);
    // The one ipcMain.on channel is the preload's path grant.
    expect([...recorded.ipcListeners.keys()]).toEqual([PATH_GRANT_CHANNEL]);
  });

  it('answers our window main frame through the service', async () => {
    expect(await invoke('listSessions', {})).toEqual({ ok: true, value: [] });
    expect(await invoke('getSession', { sessionId: 'x' })).toEqual({ ok: false, error: { code: 'invalid_input', message: 'invalid input for getSession: sessionId: expected number, received string' } });
  });

  it('refuses a foreign sender, a subframe and a URL that is not app://studio', async () => {
    const refused = { ok: false, error: { code: 'forbidden', message: 'listSessions: this frame may not call Compaction Studio' } };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(await invoke('listSessions', {}, invokeEvent({ webContentsId: window.webContents.id + 1000, url: 'app://studio/index.html' }))).toEqual(refused);
    expect(await invoke('listSessions', {}, invokeEvent({ webContentsId: window.webContents.id, url: 'app://studio/index.html', subframe: true }))).toEqual(refused);
    for (const url of ['https://evil.example/', 'file:///etc/passwd', 'app://studio.evil/index.html', 'about:blank']) {
      expect(await invoke('listSessions', {}, ours(url)), url).toEqual(refused);
    }
    // Refused before the service: a refused importPaths reads nothing either.
    expect(await invoke('importPaths', { paths: [TAU] }, ours('https://evil.example/'))).toEqual({ ok: false, error: { code: 'forbidden', message: 'importPaths: this frame may not call Compaction Studio' } });
    expect(warn).toHaveBeenCalledTimes(7);
    warn.mockRestore();
  });

  it('forwards service events to the window on the event channel', async () => {
    const before = window.webContents.sent.length;
    grantPath(CODEX);
    valueOf(await invoke('importPaths', { paths: [CODEX] }));
    expect(window.webContents.sent.slice(before)).toContainEqual({ channel: EVENT_CHANNEL, args: [{ type: 'sessions-changed' }] });
  });
});

describe('the window', () => {
  it('is created locked down: isolated, sandboxed, no Node, no webview, web security on', () => {
    const prefs = window.options.webPreferences!;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
    });
    expect(path.basename(prefs.preload!)).toBe('preload.cjs');
    expect(prefs.additionalArguments).toEqual([operationsSwitch(OPERATIONS)]);
    expect(window.loadedUrls).toEqual(['app://studio/index.html']);
  });

  it('serves the renderer from a privileged, secure app:// scheme', () => {
    expect(recorded.privilegedSchemes).toEqual([[{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]]);
    expect([...recorded.protocolHandlers.keys()]).toEqual(['app']);
  });

  it('sends the CSP and the security headers on every app:// response, a 404 too', async () => {
    const handler = recorded.protocolHandlers.get('app')!;
    const cases: Array<[string, number, string]> = [
      ['app://studio/index.html', 200, '<!doctype html><title>Compaction Studio</title>'],
      ['app://studio/', 200, '<!doctype html><title>Compaction Studio</title>'],
      ['app://studio/assets/index-abc.js', 200, 'console.log(1)'],
      ['app://studio/missing.js', 404, 'not found'],
      // Outside the renderer folder, encoded: refused, not served.
      ['app://studio/..%2Fsecret.txt', 404, 'not found'],
      // Not our host.
      ['app://evil/index.html', 404, 'not found'],
    ];
    for (const [url, status, body] of cases) {
      const response = await handler(new Request(url));
      expect(response.status, url).toBe(status);
      expect(await response.text(), url).toBe(body);
      expect(response.headers.get('content-security-policy'), url).toBe(CONTENT_SECURITY_POLICY);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name), `${url} ${name}`).toBe(value);
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
  });

  it('puts the CSP on every other response of the session too', () => {
    const responses: unknown[] = [];
    recorded.headersListener!({ responseHeaders: { 'content-type': ['text/html'] } } as never, (r) => responses.push(r));
    expect(responses).toEqual([{ responseHeaders: { 'content-type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } }]);
  });

  it('denies every permission request and check', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'fullscreen', 'pointerLock'] as const) {
      const answers: boolean[] = [];
      recorded.permissionRequestHandler!({} as never, permission, (granted) => answers.push(granted), {} as never);
      expect(answers, permission).toEqual([false]);
      expect(recorded.permissionCheckHandler!(null, permission, 'app://studio', {} as never), permission).toBe(false);
    }
  });
});

describe('navigation, redirects, new windows and webviews', () => {
  function fakeEvent(url?: string) {
    return { preventDefault: vi.fn(), url };
  }

  it('refuses navigation and redirects away from app://studio, and lets in-app navigation be', () => {
    const contents = window.webContents;
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'app://evil/index.html', 'data:text/html,<script>1</script>']) {
      const navigate = fakeEvent();
      contents.emit('will-navigate', navigate, url);
      expect(navigate.preventDefault, url).toHaveBeenCalledTimes(1);
      const redirect = fakeEvent();
      contents.emit('will-redirect', redirect, url);
      expect(redirect.preventDefault, url).toHaveBeenCalledTimes(1);
      const frame = fakeEvent(url);
      contents.emit('will-frame-navigate', frame);
      expect(frame.preventDefault, url).toHaveBeenCalledTimes(1);
    }
    const inApp = fakeEvent();
    contents.emit('will-navigate', inApp, 'app://studio/index.html#/sessions/2');
    expect(inApp.preventDefault).not.toHaveBeenCalled();
    // None of those is a web link: nothing was asked or opened.
    expect(recorded.messageBoxes).toEqual([]);
    expect(recorded.openedExternally).toEqual([]);
  });

  it('refuses webviews and every new window, in the window and in any later webContents', () => {
    const later = new FakeWebContents();
    emitAppEvent('web-contents-created', {}, later);
    for (const contents of [window.webContents, later]) {
      const attach = fakeEvent();
      contents.emit('will-attach-webview', attach, {}, {});
      expect(attach.preventDefault).toHaveBeenCalledTimes(1);
      for (const url of ['about:blank', 'app://studio/index.html', 'file:///etc/passwd']) {
        expect(contents.windowOpenHandler!({ url } as never)).toEqual({ action: 'deny' });
      }
    }
    expect(recorded.openedExternally).toEqual([]);
  });
});

describe('links to the web', () => {
  it('open in the browser only after the user said yes for a host not yet allowed', async () => {
    const contents = window.webContents;
    // 1. Cancel: nothing opens, and the new window is denied all the same.
    recorded.messageBoxAnswers.push({ response: 1, checkboxChecked: false });
    expect(contents.windowOpenHandler!({ url: 'https://docs.example.com/a' } as never)).toEqual({ action: 'deny' });
    await vi.waitFor(() => expect(recorded.messageBoxes).toHaveLength(1));
    expect(recorded.messageBoxes[0]).toMatchObject({ type: 'question', message: 'Open a link to docs.example.com in your browser?', detail: 'https://docs.example.com/a', buttons: ['Open in browser', 'Cancel'], cancelId: 1, defaultId: 1, checkboxLabel: 'Always open links to docs.example.com' });
    // 2. Open once: opened, and asked again next time.
    recorded.messageBoxAnswers.push({ response: 0, checkboxChecked: false });
    contents.emit('will-navigate', { preventDefault: vi.fn() }, 'https://docs.example.com/b');
    await vi.waitFor(() => expect(recorded.openedExternally).toEqual(['https://docs.example.com/b']));
    // 3. Open and always: the host is remembered in the settings.
    recorded.messageBoxAnswers.push({ response: 0, checkboxChecked: true });
    contents.windowOpenHandler!({ url: 'https://docs.example.com/c' } as never);
    await vi.waitFor(() => expect(recorded.openedExternally).toEqual(['https://docs.example.com/b', 'https://docs.example.com/c']));
    expect(recorded.messageBoxes).toHaveLength(3);
    const db = openDatabase(dbPath);
    expect(readAllowedLinkHosts(db)).toEqual(['docs.example.com']);
    db.close();
    // 4. An allowed host opens without asking; another host (another port) still asks.
    contents.windowOpenHandler!({ url: 'https://docs.example.com/d' } as never);
    await vi.waitFor(() => expect(recorded.openedExternally).toHaveLength(3));
    expect(recorded.messageBoxes).toHaveLength(3);
    contents.windowOpenHandler!({ url: 'https://docs.example.com:8443/e' } as never);
    await vi.waitFor(() => expect(recorded.messageBoxes).toHaveLength(4));
    expect(recorded.openedExternally).toEqual(['https://docs.example.com/b', 'https://docs.example.com/c', 'https://docs.example.com/d']);
  });
});

describe('importPaths in Electron', () => {
  it('refuses a path the user did not pick or drop, before reading it', async () => {
    const sessionsBefore = valueOf<unknown[]>(await invoke('listSessions', {})).length;
    expect(await invoke('importPaths', { paths: [TAU] })).toEqual({ ok: false, error: { code: 'forbidden', message: `importPaths: ${JSON.stringify(TAU)} was not picked in an Open dialog or dropped on the window` } });
    expect(await invoke('importPaths', { paths: ['/etc/passwd'] })).toEqual({ ok: false, error: { code: 'forbidden', message: 'importPaths: "/etc/passwd" was not picked in an Open dialog or dropped on the window' } });
    expect(valueOf<unknown[]>(await invoke('listSessions', {})).length).toBe(sessionsBefore);
    // Malformed input is still the service's zod answer.
    expect(valueOf(await invoke('listSessions', {}))).toHaveLength(sessionsBefore);
    expect((await invoke('importPaths', { paths: [] })).ok).toBe(false);
  });

  it('accepts a file the preload granted from our window (a drop), not from anyone else', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(grantPath(TAU, invokeEvent({ webContentsId: window.webContents.id + 1000, url: 'app://studio/index.html' }))).toBe(false);
    expect(grantPath(TAU, ours('https://evil.example/'))).toBe(false);
    expect(grantPath('relative/file.json')).toBe(false);
    expect(grantPath(42)).toBe(false);
    expect((await invoke('importPaths', { paths: [TAU] })).ok).toBe(false);
    warn.mockRestore();

    expect(grantPath(TAU)).toBe(true);
    const report = valueOf<{ sessions: Array<{ turns: number; format: string; duplicate: boolean }> }>(await invoke('importPaths', { paths: [TAU] }));
    // 46 turns: the tau-bench fixture's count (test/node/import-fixtures.test.ts).
    expect(report.sessions.map(({ turns, format, duplicate }) => ({ turns, format, duplicate }))).toEqual([{ turns: 46, format: 'openai', duplicate: false }]);
    // One granted path does not open the others.
    expect((await invoke('importPaths', { paths: [TAU, '/etc/hostname'] })).ok).toBe(false);
  });

  it('accepts what the user picked in main own Open dialog (File > Import…), also later from the window', async () => {
    const fresh = path.join(tmp.dir, 'picked.json');
    fs.copyFileSync(TAU, fresh);
    fs.appendFileSync(fresh, '\n');
    expect((await invoke('importPaths', { paths: [fresh] })).ok).toBe(false);
    const importItem = recorded.menuTemplates.at(-1)!.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : [])).find((i) => i.label === 'Import…')!;
    recorded.openDialogPicks = [fresh];
    const sessionsBefore = valueOf<unknown[]>(await invoke('listSessions', {})).length;
    (importItem.click as () => void)();
    // The import runs in the worker (a thread started on demand): wait for it, not for a fixed second.
    await vi.waitFor(async () => expect(valueOf<unknown[]>(await invoke('listSessions', {})).length).toBe(sessionsBefore + 1), { timeout: 30_000, interval: 100 });
    expect(recorded.errorBoxes).toEqual([]);
    const again = valueOf<{ sessions: Array<{ duplicate: boolean }> }>(await invoke('importPaths', { paths: [fresh] }));
    expect(again.sessions.map((s) => s.duplicate)).toEqual([true]);
  });
});

describe('the API key on Linux without a keyring', () => {
  it.runIf(process.platform === 'linux')('is encrypted at rest with a keyring; with basic_text it stays in memory and Settings warns', async () => {
    const file = path.join(userData, API_KEY_FILE);
    recorded.storageBackend = 'gnome_libsecret';
    const withKeyring = valueOf<Settings>(await invoke('setSettings', { apiKey: 'sk-keyring-1' }));
    expect(withKeyring.hasApiKey).toBe(true);
    expect(withKeyring.keyStorage).toBeUndefined();
    const stored = fs.readFileSync(file);
    expect(stored.toString()).not.toContain('sk-keyring-1');

    recorded.storageBackend = 'basic_text';
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const plain = valueOf<Settings>(await invoke('getSettings', {}));
    // The file from the keyring session is not trusted under basic_text: no key until entered.
    expect(plain.hasApiKey).toBe(false);
    expect(plain.keyStorage?.encrypted).toBe(false);
    expect(plain.keyStorage?.warning).toMatch(/^No keyring is available \(Electron safeStorage fell back to its plain-text backend, basic_text\), so the API key would not be encrypted on disk\. It is kept in memory until the app quits/);
    const entered = valueOf<Settings>(await invoke('setSettings', { apiKey: 'sk-basic-2' }));
    expect(entered.hasApiKey).toBe(true);
    expect(entered.keyStorage?.warning).toBe(plain.keyStorage?.warning);
    // Nothing was written: the file is still the keyring one, the new key is nowhere on disk.
    expect(fs.readFileSync(file)).toEqual(stored);
    expect(fs.readdirSync(userData).filter((f) => f.includes('key'))).toEqual([API_KEY_FILE]);
    expect(warn).toHaveBeenCalledWith(plain.keyStorage?.warning);
    warn.mockRestore();
    recorded.storageBackend = 'gnome_libsecret';
    valueOf(await invoke('setSettings', { apiKey: '' }));
  });
});

describe('the preload', () => {
  let bridge: PreloadBridge & Record<string, unknown>;

  beforeAll(async () => {
    const argv = process.argv;
    // Main passes the operation names as a switch (webPreferences.additionalArguments).
    process.argv = [...argv, ...window.options.webPreferences!.additionalArguments!];
    await import('../../electron/shell/preload.js');
    process.argv = argv;
    bridge = recorded.exposed.get('studio') as PreloadBridge & Record<string, unknown>;
  });

  it('exposes exactly the contract on window.studio, as functions, and nothing else', () => {
    expect([...recorded.exposed.keys()]).toEqual(['studio']);
    expect(Object.keys(bridge).sort()).toEqual([...OPERATIONS, 'onEvent', 'pathForFile'].sort());
    for (const [name, value] of Object.entries(bridge)) expect(typeof value, name).toBe('function');
    for (const node of ['ipcRenderer', 'require', 'process', 'invoke', 'send', 'sendSync', 'on']) expect(node in bridge, node).toBe(false);
  });

  it('sends each operation on its own channel only', async () => {
    recorded.invoked.length = 0;
    expect(await bridge.listSessions({})).toEqual({ ok: true, value: 'answer of studio:listSessions' });
    await bridge.getSession({ sessionId: 3 });
    expect(recorded.invoked).toEqual([
      { channel: 'studio:listSessions', args: [{}] },
      { channel: 'studio:getSession', args: [{ sessionId: 3 }] },
    ]);
  });

  it('hands the window only the StudioEvent, never the IpcRendererEvent, and unsubscribes', () => {
    const seen: unknown[] = [];
    const off = bridge.onEvent((e) => seen.push(e));
    const [listener] = recorded.rendererListeners.get(EVENT_CHANNEL)!;
    (listener as (e: unknown, s: unknown) => void)({ sender: { send() {} }, ports: [] }, { type: 'sessions-changed' });
    expect(seen).toEqual([{ type: 'sessions-changed' }]);
    off();
    expect(recorded.rendererListeners.get(EVENT_CHANNEL)).toEqual([]);
  });

  it('bundles to a file that requires nothing but electron (the sandbox allows no Node)', async () => {
    // The options scripts/build.mjs uses for dist/electron/preload.cjs.
    const result = await build({ entryPoints: [path.join(ROOT, 'electron/shell/preload.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['electron'], write: false, metafile: true, logLevel: 'silent' });
    const [output] = Object.values(result.metafile.outputs);
    expect(output.imports).toEqual([{ path: 'electron', kind: 'require-call', external: true }]);
    // What it inlines: the preload, its argv parser and the zod-free contract names.
    expect(Object.keys(result.metafile.inputs).sort()).toEqual(['electron/shell/preload-args.ts', 'electron/shell/preload.ts', 'shared/contract-names.ts']);
  });

  it('grants main the path of a dropped file, and nothing for a file the page made', () => {
    recorded.sentSync.length = 0;
    recorded.pathForFile = '';
    expect(bridge.pathForFile!({})).toBe('');
    expect(recorded.sentSync).toEqual([]);
    recorded.pathForFile = '/home/user/session.jsonl';
    recorded.sendSyncAnswer = true;
    expect(bridge.pathForFile!({})).toBe('/home/user/session.jsonl');
    recorded.sendSyncAnswer = false;
    expect(bridge.pathForFile!({})).toBe('');
    expect(recorded.sentSync).toEqual([
      { channel: PATH_GRANT_CHANNEL, args: ['/home/user/session.jsonl'] },
      { channel: PATH_GRANT_CHANNEL, args: ['/home/user/session.jsonl'] },
    ]);
  });
});

describe('the packaged app (electron-builder.yml)', () => {
  it('flips the Electron fuses that turn the binary into a general Node runtime off, and the integrity ones on', async () => {
    // Read and validated by electron-builder's own loader, as `npx electron-builder` does.
    const config = await getConfig(ROOT, null, null);
    await validateConfiguration(config, new DebugLogger(false));
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
      grantFileProtocolExtraPrivileges: false,
    });
    // onlyLoadAppFromAsar needs the app in an ASAR.
    expect(config.asar).toBe(true);
  });
});
