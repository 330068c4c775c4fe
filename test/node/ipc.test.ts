/**
 * The trust boundary of the Electron transport, without Electron: the zod dispatch that
 * both transports call (malformed input rejected with a clear error naming the operation
 * and the field), the sender check on every IPC call, the app:// file mapping, and the
 * operation list the preload receives.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, operationChannel, type Envelope } from '../../shared/contract.js';
import { APP_ENTRY_URL, checkSender, isTrustedSenderUrl, rendererFileForUrl } from '../../electron/shell/ipc.js';
import { operationsFromArgv, operationsSwitch } from '../../electron/shell/preload-args.js';
import { memorySecretStore } from '../../electron/services/secrets.js';
import { createStudioService, type StudioService } from '../../electron/services/studio-service.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

let tmp: TempDir;
let service: StudioService;

beforeAll(async () => {
  tmp = tempDir('studio-ipc-');
  service = await createStudioService({ dbPath: tmp.dbPath, resourcesDir: path.join(tmp.dir, 'none'), secrets: memorySecretStore({}), importDemo: false });
});

afterAll(async () => {
  await service.close();
  tmp.cleanup();
});

function expectError(envelope: Envelope<unknown>): { code: string; message: string } {
  expect(envelope.ok).toBe(false);
  if (envelope.ok) throw new Error('unreachable');
  return envelope.error;
}

describe('dispatch validates every request against the contract', () => {
  it('rejects a wrong type and names the operation and the field', async () => {
    const error = expectError(await service.dispatch('getSession', { sessionId: '1' }));
    expect(error).toEqual({ code: 'invalid_input', message: 'invalid input for getSession: sessionId: expected number, received string' });
  });

  it('names every missing field', async () => {
    const error = expectError(await service.dispatch('listTurns', { sessionId: 1 }));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe('invalid input for listTurns: from: expected number, received undefined; to: expected number, received undefined');
  });

  it('rejects input that is not an object at all', async () => {
    expect(expectError(await service.dispatch('listSessions', null)).message).toBe('invalid input for listSessions: (input): expected object, received null');
    expect(expectError(await service.dispatch('getSettings', [1, 2])).message).toBe('invalid input for getSettings: (input): expected object, received array');
  });

  it('rejects negative, fractional and zero ids', async () => {
    for (const sessionId of [-1, 1.5, 0]) {
      const error = expectError(await service.dispatch('deleteSession', { sessionId }));
      expect(error.code).toBe('invalid_input');
      expect(error.message.startsWith('invalid input for deleteSession: sessionId: ')).toBe(true);
    }
  });

  it('rejects an unknown strategy and an unknown export format by name', async () => {
    const strategy = expectError(await service.dispatch('startCompaction', { sessionId: 1, strategy: 'magic', params: {} }));
    expect(strategy.code).toBe('invalid_input');
    expect(strategy.message).toContain('invalid input for startCompaction: strategy: ');
    const format = expectError(await service.dispatch('exportVariant', { variantId: 1, format: 'pdf' }));
    expect(format.message).toContain('invalid input for exportVariant: format: ');
  });

  it('refuses an extra multi-megabyte field instead of carrying it along, without echoing it', async () => {
    const junk = 'x'.repeat(8 * 1024 * 1024);
    const error = expectError(await service.dispatch('listSessions', { junk }));
    expect(error).toEqual({ code: 'invalid_input', message: 'invalid input for listSessions: (input): Unrecognized key: "junk"' });
  });

  it('answers an unknown operation with unknown_operation, including prototype names', async () => {
    expect(expectError(await service.dispatch('dropDatabase', {}))).toEqual({ code: 'unknown_operation', message: 'unknown operation: dropDatabase' });
    expect(expectError(await service.dispatch('__proto__', {})).code).toBe('unknown_operation');
    expect(expectError(await service.dispatch('constructor', {})).code).toBe('unknown_operation');
  });

  it('reports a well-formed request for a missing session as not_found', async () => {
    expect(expectError(await service.dispatch('getSession', { sessionId: 99 }))).toEqual({ code: 'not_found', message: 'session 99 does not exist' });
  });

  it('runs a well-formed request and wraps the value', async () => {
    expect(await service.dispatch('listSessions', {})).toEqual({ ok: true, value: [] });
    expect(await service.dispatch('getSettings', {})).toEqual({ ok: true, value: { summarizer: { kind: 'extractive' }, hasApiKey: false, concurrency: 4, tokenizer: 'o200k_base', prices: {}, contextWindows: {} } });
  });
});

describe('the IPC sender check', () => {
  it('trusts only our app://studio/ window URL', () => {
    expect(isTrustedSenderUrl(APP_ENTRY_URL)).toBe(true);
    expect(isTrustedSenderUrl('app://studio/index.html#/sessions/3')).toBe(true);
    for (const url of [
      'file:///home/user/dist/renderer/index.html',
      'https://studio/index.html',
      'http://127.0.0.1:4477/',
      'app://studio.evil.example/index.html',
      'app://evil/index.html',
      'app://user:pw@studio/index.html',
      'app://studio:8080/index.html',
      'about:blank',
      'devtools://devtools/bundled/inspector.html',
      'not a url',
      '',
      null,
      undefined,
    ]) {
      expect(isTrustedSenderUrl(url), String(url)).toBe(false);
    }
  });

  it('requires our webContents, its main frame and our URL', () => {
    const ours = new Set([7]);
    expect(checkSender({ frameUrl: APP_ENTRY_URL, isMainFrame: true, webContentsId: 7 }, ours)).toEqual({ ok: true });
    expect(checkSender({ frameUrl: APP_ENTRY_URL, isMainFrame: true, webContentsId: 8 }, ours)).toEqual({ ok: false, reason: 'webContents 8 is not a Compaction Studio window' });
    expect(checkSender({ frameUrl: APP_ENTRY_URL, isMainFrame: false, webContentsId: 7 }, ours)).toEqual({ ok: false, reason: 'a subframe may not call the API' });
    expect(checkSender({ frameUrl: 'https://example.com/', isMainFrame: true, webContentsId: 7 }, ours)).toEqual({ ok: false, reason: 'sender URL https://example.com/ is not app://studio' });
  });

  it('maps app:// URLs into the renderer folder and never outside it', () => {
    const root = path.resolve('/srv/renderer');
    expect(rendererFileForUrl('app://studio/', root)).toBe(path.join(root, 'index.html'));
    expect(rendererFileForUrl('app://studio/assets/index-abc.js', root)).toBe(path.join(root, 'assets', 'index-abc.js'));
    // The URL parser resolves dot segments (also %2e%2e) against the root first.
    expect(rendererFileForUrl('app://studio/../../etc/passwd', root)).toBe(path.join(root, 'etc', 'passwd'));
    expect(rendererFileForUrl('app://studio/%2e%2e/%2e%2e/etc/passwd', root)).toBe(path.join(root, 'etc', 'passwd'));
    // An encoded slash survives parsing; decoded it would climb out, so it is refused.
    expect(rendererFileForUrl('app://studio/..%2Fsecret', root)).toBeNull();
    expect(rendererFileForUrl('app://studio/a%00b', root)).toBeNull();
    expect(rendererFileForUrl('file:///etc/passwd', root)).toBeNull();
  });
});

describe('the operations the preload exposes', () => {
  it('are exactly the contract operations, one channel each', () => {
    const names = operationsFromArgv(['electron', '--type=renderer', operationsSwitch(OPERATIONS)]);
    expect(names).toEqual(OPERATIONS);
    // 24 before variants the user owns; resolveVariant became findVariant, and saveVariant, renameVariant, deleteVariant, replayDraft, compareVariants, cancelJob were added; sweeps added listSweeps and getSweep.
    expect(names.length).toBe(32);
    expect(new Set(names.map(operationChannel)).size).toBe(32);
    expect(operationChannel('listSessions')).toBe('studio:listSessions');
  });

  it('drop names that are not identifiers and yield nothing without the switch', () => {
    expect(operationsFromArgv(['--studio-operations=listSessions,../x,a:b,,getSettings'])).toEqual(['listSessions', 'getSettings']);
    expect(operationsFromArgv(['electron', '--type=renderer'])).toEqual([]);
  });
});
