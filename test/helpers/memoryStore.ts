import { createRequire } from 'node:module';
import initSqlJs, { type Database } from 'sql.js';
import type { Clock } from '../../shared/clock.js';
import type { Dialect, Row, SqlValue, Store, Tx } from '../../shared/store/store.js';
import { SQLITE_MIGRATIONS } from '../../shared/store/sqlite-schema.js';

const require = createRequire(import.meta.url);
const SQL = initSqlJs({ locateFile: (f) => require.resolve(`sql.js/dist/${f}`) });
const dialect: Dialect = { name: 'sqlite', forUpdate: '', skipLocked: '' };

/**
 * A store in one process's memory, for unit tests of the rules: the same schema and
 * transactions as the file store, none of its files.
 */
export async function memoryStore(clock: Clock): Promise<Store & { db: Database }> {
  const db = new (await SQL).Database();
  for (const migration of SQLITE_MIGRATIONS) for (const sql of migration) db.run(sql);
  let version = 0;

  function tx(writable: boolean): Tx {
    const all = async <T,>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> => {
      const stmt = db.prepare(sql);
      try {
        stmt.bind(params as SqlValue[]);
        const rows: Row[] = [];
        while (stmt.step()) rows.push(stmt.getAsObject() as Row);
        return rows as T[];
      } finally {
        stmt.free();
      }
    };
    return {
      now: clock.now(),
      dialect,
      all,
      get: async (sql, params) => (await all(sql, params))[0] as never,
      run: async (sql, params = []) => {
        if (!writable) throw new Error('a read transaction cannot change data');
        db.run(sql, params as SqlValue[]);
        return { changes: db.getRowsModified() };
      },
    };
  }

  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T,>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    db,
    backend: 'file',
    location: ':memory:',
    read: (fn) => serial(() => fn(tx(false))),
    write: (fn) =>
      serial(async () => {
        db.run('BEGIN');
        try {
          const result = await fn(tx(true));
          if (result.ok) {
            db.run('COMMIT');
            version++;
          } else db.run('ROLLBACK');
          return result;
        } catch (error) {
          db.run('ROLLBACK');
          throw error;
        }
      }),
    version: async () => String(version),
    info: async () => ({ backend: 'file', location: ':memory:', schemaVersion: SQLITE_MIGRATIONS.length }),
    close: async () => db.close(),
  };
}

