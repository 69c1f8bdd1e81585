import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../shared/errors.js';
import { openPostgresStore, POSTGRES_SCHEMA_VERSION } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { BatonProcess, bundleBatonProcess } from './baton-processes.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

describe.skipIf(!ADMIN_URL)('PostgreSQL store: schema and migrations', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function freshDatabase(): Promise<TestDatabase> {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    return db;
  }

  async function open(url: string): Promise<Store> {
    const store = await openPostgresStore({ url });
    cleanups.push(() => store.close());
    return store;
  }

  async function openFailure(url: string): Promise<StoreUnavailableError> {
    const error = await openPostgresStore({ url }).then(
      async (store) => {
        await store.close();
        throw new Error('the store opened');
      },
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    return error as StoreUnavailableError;
  }

  it('migrates a new database once when several stores open it at the same moment', async () => {
    const db = await freshDatabase();
    const stores = await Promise.all([open(db.url), open(db.url), open(db.url), open(db.url)]);
    for (const store of stores) expect((await store.info()).schemaVersion).toBe(POSTGRES_SCHEMA_VERSION);
    const meta = await db.query<{ name: string; value: string }>('SELECT name, value FROM meta ORDER BY name');
    expect(meta.rows).toEqual([
      { name: 'next_number', value: '1' },
      { name: 'schema_version', value: String(POSTGRES_SCHEMA_VERSION) },
    ]);
    const counters = await db.query('SELECT * FROM store_changes');
    expect(counters.rowCount).toBe(1);
  });

  it('comes up in every one of several server processes started at once on a new database', async () => {
    const db = await freshDatabase();
    const bundle = await bundleBatonProcess();
    const cwd = mkdtempSync(join(tmpdir(), 'baton-pg-cwd-'));
    cleanups.push(async () => {
      bundle.remove();
      rmSync(cwd, { recursive: true, force: true });
    });
    const servers = Array.from({ length: 4 }, (_, i) => BatonProcess.start(bundle.file, { databaseUrl: db.url, agent: `opener-${i}`, cwd }));
    cleanups.push(() => Promise.all(servers.map((s) => s.stop())).then(() => undefined));
    await Promise.all(servers.map((s) => s.ready));
    const created = await Promise.all(servers.map((s) => s.call<{ ok: boolean }>('createIssue', { title: 'after the migration' })));
    expect(created.every((c) => c.ok)).toBe(true);
    const versions = await db.query<{ value: string }>(`SELECT value FROM meta WHERE name IN ('schema_version', 'next_number') ORDER BY name`);
    expect(versions.rows.map((r) => r.value)).toEqual(['5', String(POSTGRES_SCHEMA_VERSION)]);
  });

  it('changes nothing when it opens a database that is already current', async () => {
    const db = await freshDatabase();
    const first = await open(db.url);
    const before = await first.version();
    await open(db.url);
    expect(await first.version()).toBe(before);
  });

  it('refuses a database whose schema is newer than this code, and leaves it as it was', async () => {
    const db = await freshDatabase();
    await (await open(db.url)).close();
    await db.query(`UPDATE meta SET value = '99' WHERE name = 'schema_version'`);
    const error = await openFailure(db.url);
    expect(error.reason).toMatch(/schema version 99 is newer/);
    expect(error.path).toBe(db.url);
    const kept = await db.query<{ value: string }>(`SELECT value FROM meta WHERE name = 'schema_version'`);
    expect(kept.rows[0].value).toBe('99');
  });

  it('refuses a database holding an issues table that is not Baton’s, and creates nothing in it', async () => {
    const db = await freshDatabase();
    await db.query('CREATE TABLE issues (ticket INTEGER)');
    const error = await openFailure(db.url);
    expect(error.reason).toMatch(/not a Baton database/);
    const meta = await db.query(`SELECT to_regclass('meta') AS meta`);
    expect(meta.rows[0].meta).toBeNull();
  });

  it('refuses, naming it, a database that does not exist, without retrying', async () => {
    const url = new URL(ADMIN_URL!);
    url.pathname = '/baton_no_such_database';
    const started = Date.now();
    const error = await openFailure(url.toString());
    expect(error.reason).toMatch(/does not exist/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('never shows the password of the URL, in its location or its errors', async () => {
    const db = await freshDatabase();
    // The test server trusts loopback connections, so any password gets in.
    const url = new URL(db.url);
    url.username = 'baton';
    url.password = 'hunter2';
    const store = await open(url.toString());
    expect(store.location).not.toContain('hunter2');
    expect(store.location).toContain('baton:***@');
    expect((await store.info()).location).toBe(store.location);
    url.pathname = '/baton_no_such_database';
    const error = await openFailure(url.toString());
    expect(error.message).not.toContain('hunter2');
    expect(error.path).toContain('***');
  });
});
