import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { systemClock, type Clock } from '../shared/clock.js';
import { StoreUnavailableError } from '../shared/errors.js';
import type { Result } from '../shared/result.js';
import type { Dialect, Row, SqlValue, Store, StoreInfo, Tx } from '../shared/store/store.js';

/**
 * The native reference: better-sqlite3 in WAL mode with `synchronous = FULL`, every write
 * under `BEGIN IMMEDIATE`, behind the same `Store` interface. Baton's rules run on it
 * unchanged, so a claim here executes exactly the statements a claim on the file store
 * does; what differs is only the engine and how processes share the file.
 */
const DIALECT: Dialect = { name: 'sqlite', forUpdate: '', skipLocked: '' };

/** How long a writer waits for another process's write transaction (SQLite's busy handler). */
const BUSY_TIMEOUT_MS = 10_000;

class NativeTx implements Tx {
  readonly dialect = DIALECT;
  constructor(
    private readonly prepare: (sql: string) => Database.Statement,
    readonly now: number,
    private readonly writable: boolean,
  ) {}

  async all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.prepare(sql).all(...params) as T[];
  }

  async get<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.prepare(sql).get(...params) as T | undefined;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    if (!this.writable) throw new Error('a read transaction cannot change data');
    const stmt = this.prepare(sql);
    if (stmt.reader) {
      stmt.all(...params);
      return { changes: 0 };
    }
    return { changes: stmt.run(...params).changes };
  }
}

/** Opens an existing SQLite file (a copy of a Baton snapshot) as the reference store. */
export function openNativeStore(path: string, clock: Clock = systemClock): Store {
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  // The busy timeout first: even switching to WAL (a no-op once the file is in WAL) can meet a busy writer.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  const cache = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  const begin = db.prepare('BEGIN');
  const beginImmediate = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let commits = 0;
  // One transaction at a time per connection, as the file store's in-process mutex does.
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = tail.then(fn, fn);
    tail = next.catch(() => undefined);
    return next;
  };

  return {
    backend: 'file',
    location: path,
    read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return serial(async () => {
        begin.run();
        try {
          return await fn(new NativeTx(prepare, clock.now(), false));
        } finally {
          commit.run();
        }
      });
    },
    write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
      return serial(async () => {
        try {
          beginImmediate.run();
        } catch (error) {
          // Past the busy timeout: refused like the file store's lock timeout, nothing changed.
          if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new StoreUnavailableError(path, 'database is locked');
          throw error;
        }
        let result: Result<T>;
        try {
          result = await fn(new NativeTx(prepare, clock.now(), true));
        } catch (error) {
          rollback.run();
          throw error;
        }
        if (result.ok) {
          commit.run();
          commits++;
        } else {
          rollback.run();
        }
        return result;
      });
    },
    async version(): Promise<string> {
      return `${dataVersion.get() as number}:${commits}`;
    },
    // Plans without statistics, as the file store does: the same plans, measured alike.
    async analyze(): Promise<void> {},
    async compact(): Promise<void> {
      db.exec('VACUUM');
    },
    async info(): Promise<StoreInfo> {
      return { backend: 'file', location: path, schemaVersion: 1, sizes: nativeSizes(path) };
    },
    async close(): Promise<void> {
      await tail;
      db.close();
    },
  };
}

/** Bytes of the reference database and of its write-ahead log. */
export function nativeSizes(path: string): { snapshot: number; log: number } {
  const size = (p: string) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return { snapshot: size(path), log: size(`${path}-wal`) };
}
