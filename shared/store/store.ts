import type { Result } from '../result.js';

/** A value a statement takes or gives back. Times are integer milliseconds since the epoch. */
export type SqlValue = string | number | null;
export type Row = Record<string, SqlValue>;

/** The few pieces of SQL that differ between the engines; everything else is portable SQL. */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Appended to a SELECT that reads rows it will change: ` FOR UPDATE` on PostgreSQL, empty under the file lock. */
  readonly forUpdate: string;
  /** Appended to a dispatch SELECT: ` FOR UPDATE SKIP LOCKED` on PostgreSQL, empty under the file lock. */
  readonly skipLocked: string;
}

/**
 * One transaction. Statements use `?` placeholders and portable SQL; `now` is the
 * transaction's time, taken once it holds what it changes: for the file, the injected
 * clock once it holds the lock, so every rule in it sees one instant; for PostgreSQL,
 * the database clock, moved on when a statement waited for a row lock.
 */
export interface Tx {
  readonly now: number;
  readonly dialect: Dialect;
  /** `all` and `get`: rows of a query, or of a change with `RETURNING` (in a write, recorded as `run` records it). */
  all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** A statement that changes data. The file store records it for every other process to replay. */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
}

/** What `baton doctor` and the benchmark report about a store. */
export interface StoreInfo {
  backend: 'file' | 'postgres';
  /** The database path, or the connection URL without its password. */
  location: string;
  schemaVersion: number;
  /** File store: bytes of the snapshot and of the operation log. */
  sizes?: { snapshot: number; log: number };
  [detail: string]: unknown;
}

/**
 * The storage behind Baton: transactions over one database that many processes share.
 * Throws `StoreUnavailableError` when it cannot be used; refusals of the rules travel
 * as results and roll the transaction back.
 */
export interface Store {
  readonly backend: 'file' | 'postgres';
  /** The database path, or the connection URL without its password. */
  readonly location: string;
  /** Runs `fn` on a current, consistent view. Statements that change data are not allowed. */
  read<T>(fn: (tx: Tx) => Promise<T>, options?: ReadOptions): Promise<T>;
  /** Runs `fn` as one atomic transaction across processes; kept only when it returns `ok`. */
  write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>>;
  /** Changes whenever any process commits; cheap enough to poll several times a second. */
  version(): Promise<string>;
  /**
   * Refreshes the query planner's statistics after a bulk change (an import), where the
   * engine plans from them; a no-op where it does not.
   */
  analyze(): Promise<void>;
  /**
   * Gives back the space of deleted rows after retention (`baton prune`): a vacuumed new
   * snapshot for the file store, VACUUM of the history tables on PostgreSQL.
   */
  compact(): Promise<void>;
  info(): Promise<StoreInfo>;
  close(): Promise<void>;
}

/** How a read is taken. */
export interface ReadOptions {
  /**
   * Bookkeeping of the server's own (the lost-lease look-up after every call), not its
   * agent reading: it does not count as a read lately, which makes a file store's copy
   * follow the log between calls (`FileStore.follow`).
   */
  quiet?: boolean;
}
