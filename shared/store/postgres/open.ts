import { StoreUnavailableError } from '../../errors.js';
import type { Store } from '../store.js';
import { describeFailure } from './failures.js';
import { redactUrl } from './location.js';
import { migrate } from './migrate.js';
import { createPool, DEFAULT_POOL_MAX, withClient } from './pool.js';
import { withConnectRetries } from './retry.js';
import { PostgresStore } from './store.js';

/** How to reach the database (`BATON_DATABASE_URL`). */
export interface PostgresStoreOptions {
  /**
   * `postgres://user:password@host:port/database`, with pg's connection parameters:
   * `sslmode=require`, `options=-c search_path=baton` (keep Baton's tables in a schema of
   * their own), `lock_timeout=<ms>` (the wait limit for a locked row, 10 s by default).
   */
  url: string;
  /** Connections this process may hold at once; 4 by default. */
  poolMax?: number;
  /**
   * For tests only: plays a process whose own clock is off by this much. Leases never
   * read the process clock (every transaction's `now` is the database's), so the one
   * thing it moves is the clock offset that `info()` reports.
   */
  clockSkewMs?: number;
}

/**
 * Opens the PostgreSQL store: connects (a few tries over a few seconds), brings the
 * schema up to date under an advisory lock, and returns the store. Throws
 * `StoreUnavailableError`, naming the URL without its password, when the server cannot
 * be reached, refuses us, or holds a schema newer than this code or not Baton's.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const location = redactUrl(options.url);
  const poolMax = options.poolMax ?? DEFAULT_POOL_MAX;
  if (!Number.isInteger(poolMax) || poolMax < 1) throw new RangeError(`poolMax must be a positive integer, not ${poolMax}`);
  let pool;
  try {
    pool = createPool(options.url, poolMax);
  } catch (err) {
    throw new StoreUnavailableError(location, `the URL is not a usable PostgreSQL URL: ${describeFailure(err)}`);
  }
  try {
    // A connection that failed mid-migration is closed rather than reused (the default of withClient).
    const schemaVersion = await withConnectRetries(() => withClient(pool, (client) => migrate(client, location)), location);
    return new PostgresStore(pool, location, schemaVersion, options.clockSkewMs ?? 0);
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof StoreUnavailableError) throw err;
    throw new StoreUnavailableError(location, describeFailure(err));
  }
}
