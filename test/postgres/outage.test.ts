import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../shared/errors.js';
import { ok } from '../../shared/result.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { TcpProxy } from './tcp-proxy.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

describe.skipIf(!ADMIN_URL)('PostgreSQL store: the server goes away', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(db.url);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port) });
    store = await openPostgresStore({ url: proxy.url(db.url) });
  });
  afterAll(async () => {
    await store?.close();
    await proxy?.stop();
    await db?.drop();
  });

  const countComments = async (text: string) =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM comments WHERE text = $1', [text])).rows[0].n);

  it('runs a write again, whole, when its connection is cut before COMMIT', async () => {
    let runs = 0;
    const result = await store.write(async (tx) => {
      runs++;
      await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [1, 'cut once', 'tester', tx.now]);
      if (runs === 1) proxy.cut();
      await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [1, 'cut once', 'tester', tx.now]);
      return ok(runs);
    });
    expect(result).toEqual({ ok: true, value: 2 });
    expect(await countComments('cut once')).toBe(2);
  });

  it('rides out an outage shorter than its retry budget', async () => {
    await proxy.stop();
    const back = setTimeout(() => void proxy.resume(), 400);
    try {
      const result = await store.write(async (tx) => {
        await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [1, 'after the outage', 'tester', tx.now]);
        return ok(undefined);
      });
      expect(result.ok).toBe(true);
      expect(await countComments('after the outage')).toBe(1);
    } finally {
      clearTimeout(back);
    }
  });

  it('fails with STORE_UNAVAILABLE within a few seconds when the server stays away, and works again once it is back', async () => {
    await proxy.stop();
    try {
      const started = Date.now();
      const write = await store
        .write(async (tx) => {
          await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [1, 'during the outage', 'tester', tx.now]);
          return ok(undefined);
        })
        .catch((err: unknown) => err);
      expect(write).toBeInstanceOf(StoreUnavailableError);
      expect((write as StoreUnavailableError).path).toBe(store.location);
      expect(Date.now() - started).toBeLessThan(6_000);
      await expect(store.version()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await proxy.resume();
    }
    expect(await countComments('during the outage')).toBe(0);
    expect(await store.read(async (tx) => typeof tx.now)).toBe('number');
  });
});
