/**
 * Secrets by value (shared/redact.ts): a key that looks like no key (`hunter2hunter2`), echoed
 * by the endpoint in its error text, is found nowhere afterwards: not in the database file,
 * not in the CLI's answers (stdout, stderr), not in any export; nor in the service's envelopes.
 * The real CLI as a process against the scripted OpenAI-compatible server.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportFormatSchema } from '../../shared/contract.js';
import { errorEnvelope } from '../../electron/services/dispatch.js';
import { holdSecret, redactHeldSecrets, redactHeldSecretsIn, redactSecrets } from '../../electron/held-secrets.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';
import { FIXTURES } from '../helpers/fixture-sessions.js';
import { runCliAsync, type CliRun } from '../helpers/cli-process.js';
import { tempDir, type TempDir } from '../helpers/temp-db.js';

const KEY = 'hunter2hunter2';
const TAU = path.join(FIXTURES, 'openai/tau-bench__gpt-4o-airline__idx113_task13_trial2_reward1.json');

let server: FakeOpenAiServer;
let tmp: TempDir;
beforeAll(async () => {
  server = await startFakeOpenAiServer();
  tmp = tempDir('cs-secret-');
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('a key echoed by the endpoint is kept nowhere', { timeout: 240_000 }, () => {
  it('not in the database file, the CLI output, the run listing or any of the five exports', async () => {
    // The endpoint answers every request 400, quoting the credential it was sent.
    server.script((req) => ({ kind: 'status', status: 400, body: { error: { message: `invalid credential ${String(req.headers.authorization).replace(/^Bearer /, '')} for this project`, type: 'invalid_request_error' } } }));
    const env = { OPENAI_API_KEY: KEY };
    const cli = (args: string[]) => runCliAsync([...args, '--db', tmp.dbPath], { cwd: tmp.dir, env });
    const runs: CliRun[] = [];
    runs.push(await cli(['import', TAU, '--json']));
    expect(runs[0].code).toBe(0);
    const compact = await cli(['compact', '1', '--strategy', 'watermark', '--force', '--summarizer', 'openai', '--base-url', server.baseURL, '--model', 'fake-model', '--json']);
    runs.push(compact);
    expect(compact.code, compact.stderr).toBe(0);
    // The endpoint did see the key and did echo it.
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

    const variants = await cli(['variants', '1', '--json']);
    runs.push(variants);
    const variantId = (JSON.parse(variants.stdout) as { variants: Array<{ id: number }> }).variants[0].id;
    for (const format of ExportFormatSchema.options) {
      const out = path.join(tmp.dir, `export.${format}`);
      const r = await cli(['export', '1', '--variant', String(variantId), '--format', format, '-o', out]);
      expect(r.code, `${format}: ${r.stderr}`).toBe(0);
      const content = fs.readFileSync(out, 'utf8');
      expect(content.length).toBeGreaterThan(0);
      expect(content, format).not.toContain(KEY);
      runs.push(await cli(['export', '1', '--variant', String(variantId), '--format', format]));
    }
    for (const r of runs) {
      expect(r.stdout).not.toContain(KEY);
      expect(r.stderr).not.toContain(KEY);
    }
    // The run's events keep the endpoint's words, without the key.
    const db = new Database(tmp.dbPath, { readonly: true });
    const events = db.prepare("SELECT data FROM run_events WHERE data LIKE '%invalid credential%' UNION ALL SELECT stats FROM runs WHERE stats LIKE '%invalid credential%'").pluck().all() as string[];
    db.close();
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e).toContain('invalid credential [redacted]');
    for (const suffix of ['', '-wal']) {
      const file = `${tmp.dbPath}${suffix}`;
      if (fs.existsSync(file)) expect(fs.readFileSync(file).includes(Buffer.from(KEY)), file).toBe(false);
    }
  });
});

describe('redaction by value', () => {
  it('removes a held value (and its URL-encoded form) that no pattern finds, from texts and from values', () => {
    const key = 'plain words&are a key';
    expect(redactSecrets(`echo: ${key}`)).toBe(`echo: ${key}`);
    holdSecret(key);
    expect(redactSecrets(`echo: ${key}`)).toBe('echo: [redacted]');
    expect(redactHeldSecrets(`q=${encodeURIComponent(key)}`)).toBe('q=[redacted]');
    const value = { runs: [{ error: `bad ${key}`, stats: { n: 3 } }], ids: new Float64Array([1, 2]), ok: 'untouched' };
    const out = redactHeldSecretsIn(value);
    expect(out.runs[0].error).toBe('bad [redacted]');
    expect(out.ids).toBe(value.ids);
    expect(out.ok).toBe('untouched');
    expect(value.runs[0].error).toBe(`bad ${key}`);
    // The service's envelopes: an error quoting the key crosses the boundary without it.
    const envelope = errorEnvelope('startCompaction', new Error(`endpoint said: ${key}`));
    expect(envelope).toEqual({ ok: false, error: { code: 'internal', message: 'startCompaction failed: endpoint said: [redacted]' } });
    const clean = { a: ['x', { b: 'y' }] };
    expect(redactHeldSecretsIn(clean)).toBe(clean);
  });
});
