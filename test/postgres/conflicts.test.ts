import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { StoreUnavailableError } from '../../shared/errors.js';
import { ok } from '../../shared/result.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store, Tx } from '../../shared/store/store.js';
import { steeredStore } from './steered-store.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

/** Resolves once `n` callers have arrived: lines transactions up at one point. */
function barrier(n: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === n) open();
    return opened;
  };
}

describe.skipIf(!ADMIN_URL)('PostgreSQL store: concurrent writers', () => {
  let db: TestDatabase;
  let stores: Store[];

  beforeAll(async () => {
    db = await createTestDatabase();
    stores = [];
    for (let i = 0; i < 4; i++) stores.push(await openPostgresStore({ url: db.url }));
  });
  afterAll(async () => {
    for (const store of stores ?? []) await store.close();
    await db?.drop();
  });

  it('loses no update when writers read a row FOR UPDATE and write it back', async () => {
    await stores[0].write(async (tx) => ok(await tx.run(`INSERT INTO meta (name, value) VALUES ('counter', '0')`)));
    const bump = (tx: Tx) =>
      tx
        .get<{ value: string }>(`SELECT value FROM meta WHERE name = 'counter'${tx.dialect.forUpdate}`)
        .then((row) => tx.run(`UPDATE meta SET value = ? WHERE name = 'counter'`, [String(Number(row!.value) + 1)]))
        .then(() => ok(undefined));
    await Promise.all(stores.map(async (store) => {
      for (let i = 0; i < 25; i++) await store.write(bump);
    }));
    const row = await stores[0].read((tx) => tx.get<{ value: string }>(`SELECT value FROM meta WHERE name = 'counter'`));
    expect(row!.value).toBe('100');
  });

  it('runs again the loser of a deadlock, so both writers succeed', async () => {
    await stores[0].write(async (tx) => {
      await tx.run(`INSERT INTO meta (name, value) VALUES ('left', '0'), ('right', '0')`);
      return ok(undefined);
    });
    const bothLocked = barrier(2);
    const runs = { a: 0, b: 0 };
    const lockInOrder = (first: string, second: string, who: 'a' | 'b') => async (tx: Tx) => {
      runs[who]++;
      await tx.run(`UPDATE meta SET value = value || ? WHERE name = ?`, [who, first]);
      if (runs[who] === 1) await bothLocked();
      await tx.run(`UPDATE meta SET value = value || ? WHERE name = ?`, [who, second]);
      return ok(who);
    };
    const [a, b] = await Promise.all([
      stores[0].write(lockInOrder('left', 'right', 'a')),
      stores[1].write(lockInOrder('right', 'left', 'b')),
    ]);
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(runs.a + runs.b).toBe(3); // one of them ran twice
    const rows = await stores[0].read((tx) => tx.all<{ name: string; value: string }>(`SELECT name, value FROM meta WHERE name IN ('left', 'right') ORDER BY name`));
    for (const row of rows) expect(row.value.split('').sort().join('')).toBe('0ab');
  });

  it('runs again the loser of a race to insert the same key, which then finds the winner’s row', async () => {
    const bothChecked = barrier(2);
    const runs: string[] = [];
    const claimName = (who: string) => async (tx: Tx) => {
      runs.push(who);
      const existing = await tx.get<{ value: string }>(`SELECT value FROM meta WHERE name = 'first'`);
      if (existing) return ok(`found ${existing.value}`);
      if (runs.length <= 2) await bothChecked();
      await tx.run(`INSERT INTO meta (name, value) VALUES ('first', ?)`, [who]);
      return ok(`inserted ${who}`);
    };
    const answers = await Promise.all([stores[2].write(claimName('x')), stores[3].write(claimName('y'))]);
    const values = answers.map((a) => (a.ok ? a.value : a.error.code)).sort();
    expect(values).toHaveLength(2);
    const winner = values.find((v) => v.startsWith('inserted'))!.slice('inserted '.length);
    expect(values).toContain(`found ${winner}`);
  });

  it('reports STORE_UNAVAILABLE, changing nothing, when a row stays locked past the wait limit', async () => {
    await stores[0].write(async (tx) => ok(await tx.run(`INSERT INTO meta (name, value) VALUES ('held', 'before')`)));
    // A URL parameter shortens the server-side lock wait (10 s by default) for this test.
    const impatient = await openPostgresStore({ url: `${db.url}?lock_timeout=300` });
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT value FROM meta WHERE name = 'held' FOR UPDATE`);
      const started = Date.now();
      const error = await impatient
        .write(async (tx) => {
          await tx.run(`INSERT INTO meta (name, value) VALUES ('while held', 'x')`);
          await tx.get(`SELECT value FROM meta WHERE name = 'held'${tx.dialect.forUpdate}`);
          return ok(undefined);
        })
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).reason).toMatch(/locked or busy past the wait limit/);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await impatient.close();
    }
    const row = await stores[0].read((tx) => tx.get(`SELECT value FROM meta WHERE name = 'while held'`));
    expect(row).toBeUndefined();
  });
  it('reports STORE_UNAVAILABLE, changing nothing, when every attempt of a write ends in a deadlock', async () => {
    let attempts = 0;
    const error = await stores[0]
      .write(async (tx) => {
        attempts++;
        await tx.run(`INSERT INTO meta (name, value) VALUES ('deadlocked', 'x')`);
        // The server's own deadlock error, as the loser of a real deadlock receives it.
        await tx.run(`DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$`);
        return ok(undefined);
      })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).reason).toMatch(/kept reporting conflicting writes \(deadlock detected.*\).*nothing was changed/);
    expect(attempts).toBe(5);
    expect(await stores[0].read((tx) => tx.get(`SELECT value FROM meta WHERE name = 'deadlocked'`))).toBeUndefined();
  });

  it('answers a tool call STORE_UNAVAILABLE when its write keeps losing serialization races', async () => {
    const losing = steeredStore(stores[1], {
      before: async (sql) => {
        if (sql.startsWith('INSERT INTO relations')) {
          throw Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
        }
      },
    });
    const baton = new Baton({ store: losing, caller: { agent: 'a', session: 'conflicts', renewer: null, worktree: null }, config: DEFAULTS });
    for (const title of ['one', 'two']) expect((await baton.createIssue({ title })).ok).toBe(true);
    const related = await baton.relate({ key: 'BAT-1', type: 'blocks', other: 'BAT-2' });
    expect(related.ok ? 'ok' : related.error).toMatchObject({ code: 'STORE_UNAVAILABLE', reason: expect.stringMatching(/conflicting writes/) });
  });
});
