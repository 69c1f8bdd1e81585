import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail, ok } from '../../shared/result.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import { POSTGRES_SCHEMA_VERSION } from '../../shared/store/postgres/schema.js';
import type { Store, Tx } from '../../shared/store/store.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

describe.skipIf(!ADMIN_URL)('PostgreSQL store: transactions', () => {
  let db: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ url: db.url });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  const countComments = (text: string) =>
    store.read(async (tx) => (await tx.get<{ n: number }>('SELECT count(*) AS n FROM comments WHERE text = ?', [text]))!.n);

  const insertComment = (tx: Tx, text: string) =>
    tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [1, text, 'tester', tx.now]);

  it('keeps a write whose function returns ok, and a later read sees it', async () => {
    const result = await store.write(async (tx) => {
      await insertComment(tx, 'kept');
      return ok('done');
    });
    expect(result).toEqual({ ok: true, value: 'done' });
    expect(await countComments('kept')).toBe(1);
  });

  it('rolls back a write whose function returns a refusal, and hands the refusal back', async () => {
    const result = await store.write(async (tx) => {
      await insertComment(tx, 'refused');
      return fail('NOT_FOUND', 'no such issue', { key: 'BAT-9' });
    });
    expect(result).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'no such issue', key: 'BAT-9' } });
    expect(await countComments('refused')).toBe(0);
  });

  it('rolls back a write whose function throws, and rethrows the same error', async () => {
    const boom = new Error('a bug in a rule');
    await expect(
      store.write(async (tx) => {
        await insertComment(tx, 'thrown');
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await countComments('thrown')).toBe(0);
  });

  it('refuses to report ok for a write in which a statement failed and the failure was swallowed', async () => {
    await expect(
      store.write(async (tx) => {
        await insertComment(tx, 'swallowed');
        await tx.run('INSERT INTO no_such_table VALUES (1)').catch(() => undefined);
        return ok(undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await countComments('swallowed')).toBe(0);
  });

  it('refuses a change of data inside a read', async () => {
    await expect(store.read((tx) => insertComment(tx, 'from a read'))).rejects.toThrow(/read transaction cannot change data/);
    expect(await countComments('from a read')).toBe(0);
  });

  it('gives one snapshot to every statement of a read', async () => {
    const seen = await store.read(async (tx) => {
      const before = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM comments'))!.n;
      await store.write(async (w) => ok(await insertComment(w, 'during a read')));
      const after = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM comments'))!.n;
      return { before, after };
    });
    expect(seen.after).toBe(seen.before);
    expect(await countComments('during a read')).toBe(1);
  });

  it('changes version() on every committed write, and not on a read or a rolled-back write', async () => {
    const v0 = await store.version();
    await store.read((tx) => tx.all('SELECT * FROM comments'));
    expect(await store.version()).toBe(v0);
    await store.write(async (tx) => {
      await insertComment(tx, 'rolled back');
      return fail('CYCLE', 'no');
    });
    expect(await store.version()).toBe(v0);
    await store.write(async (tx) => ok(await insertComment(tx, 'v1')));
    const v1 = await store.version();
    expect(v1).not.toBe(v0);
    await store.write(async (tx) => {
      // Many rows, one transaction: one step of the counter.
      for (let i = 0; i < 5; i++) await insertComment(tx, `v2.${i}`);
      return ok(undefined);
    });
    const v2 = await store.version();
    expect(Number(v2)).toBe(Number(v1) + 1);
  });

  it('shows a commit of one store in the version() of another store on the same database', async () => {
    const other = await openPostgresStore({ url: db.url });
    try {
      const before = await other.version();
      await store.write(async (tx) => ok(await insertComment(tx, 'seen elsewhere')));
      expect(await other.version()).not.toBe(before);
    } finally {
      await other.close();
    }
  });

  it('returns bigint columns and counts as numbers, and truth values as 1 or 0', async () => {
    const row = await store.read((tx) =>
      tx.get<Record<string, unknown>>(
        `SELECT CAST(? AS BIGINT) AS big, count(*) AS n, sum(CAST(2 AS BIGINT)) AS total, 1 = 1 AS yes, 1 = 2 AS no FROM (SELECT 1) t`,
        [1_767_225_600_123],
      ),
    );
    expect(row).toEqual({ big: 1_767_225_600_123, n: 1, total: 2, yes: 1, no: 0 });
  });

  it('treats a ? inside a string literal as text, not as a placeholder', async () => {
    const row = await store.read((tx) => tx.get<{ a: string; b: string; c: string }>(`SELECT '?' AS a, ? AS b, 'it''s ?' AS c`, ['value']));
    expect(row).toEqual({ a: '?', b: 'value', c: "it's ?" });
  });

  it('refuses a statement whose placeholders and values differ in number', async () => {
    await expect(store.read((tx) => tx.get('SELECT ? AS a', []))).rejects.toThrow(/1 placeholders but 0 values/);
  });

  it('gives one `now` to every statement of a transaction, read once at its start', async () => {
    const nows = await store.write(async (tx) => {
      const first = tx.now;
      await new Promise((resolve) => setTimeout(resolve, 30));
      return ok([first, tx.now]);
    });
    expect(nows.ok && nows.value[0] === nows.value[1]).toBe(true);
  });

  it('runs the portable SQL the rules rely on: ON CONFLICT, WITH RECURSIVE, lower() LIKE, LIMIT ?', async () => {
    const result = await store.write(async (tx) => {
      await tx.run(`INSERT INTO relations (type, from_id, to_id) VALUES ('blocks', ?, ?) ON CONFLICT DO NOTHING`, [1, 2]);
      const again = await tx.run(`INSERT INTO relations (type, from_id, to_id) VALUES ('blocks', ?, ?) ON CONFLICT DO NOTHING`, [1, 2]);
      await tx.run(`INSERT INTO relations (type, from_id, to_id) VALUES ('blocks', ?, ?)`, [2, 3]);
      const down = await tx.all<{ id: number }>(
        `WITH RECURSIVE down(id) AS (
           SELECT CAST(? AS BIGINT)
           UNION SELECT r.to_id FROM relations r JOIN down ON r.from_id = down.id WHERE r.type = 'blocks'
         ) SELECT id FROM down ORDER BY id LIMIT ?`,
        [1, 10],
      );
      await tx.run(
        `INSERT INTO meta (name, value) VALUES ('probe', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
        ['Mixed Case'],
      );
      const like = await tx.get<{ value: string }>(`SELECT value FROM meta WHERE lower(value) LIKE lower(?)`, ['%CASE%']);
      return ok({ changes: again.changes, down: down.map((r) => r.id), like: like?.value });
    });
    expect(result).toEqual({ ok: true, value: { changes: 0, down: [1, 2, 3], like: 'Mixed Case' } });
  });

  it('refreshes the planner statistics of the issues on analyze, which a bulk import asks for', async () => {
    await store.write(async (tx) => {
      for (let n = 1; n <= 20; n++) {
        await tx.run('INSERT INTO issues (number, key, title, status, priority, eff_priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
          1000 + n,
          `BULK-${n}`,
          `bulk ${n}`,
          'todo',
          2,
          2,
          tx.now,
          tx.now,
        ]);
      }
      return ok(undefined);
    });
    await store.analyze();
    const { rows, planned } = await store.read(async (tx) => ({
      rows: (await tx.get<{ n: number }>('SELECT count(*) AS n FROM issues'))!.n,
      // ANALYZE writes its row estimate to pg_class at once; until then a new table shows -1.
      planned: (await tx.get<{ n: number }>("SELECT reltuples AS n FROM pg_class WHERE oid = 'issues'::regclass"))!.n,
    }));
    expect(Number(rows)).toBeGreaterThanOrEqual(20);
    expect(Number(planned)).toBe(Number(rows));
  });

  it('exposes the PostgreSQL dialect to the rules', async () => {
    const dialect = await store.read(async (tx) => tx.dialect);
    expect(dialect).toEqual({ name: 'postgres', forUpdate: ' FOR UPDATE', skipLocked: ' FOR UPDATE SKIP LOCKED' });
  });

  it('describes itself with the backend, the location without password, the schema and server versions', async () => {
    const info = await store.info();
    expect(info).toMatchObject({ backend: 'postgres', location: db.url, schemaVersion: POSTGRES_SCHEMA_VERSION });
    expect(info.serverVersion).toMatch(/^\d+/);
    expect(Math.abs(info.clockOffsetMs as number)).toBeLessThan(5_000);
  });
});
