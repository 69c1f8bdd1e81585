import pg from 'pg';
import { describeFailure } from './failures.js';
import { BATON_TYPE_PARSERS } from './type-parsers.js';

/** Connections per process: a stdio server runs one call at a time, plus the sweep and polling. */
export const DEFAULT_POOL_MAX = 4;

/**
 * How long a statement waits for a row lock before the store reports itself busy
 * (`STORE_UNAVAILABLE`), like the file store's bounded wait for its lock.
 */
export const LOCK_WAIT_MS = 10_000;

/**
 * Builds the connection pool of one store. Server-side limits make a stuck client
 * harmless to the others: a transaction left open by a hung process is ended by the
 * server (and its row locks freed) after `idle_in_transaction_session_timeout`.
 */
export function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Idle connections are closed soon: a team's many agents each hold a pool.
    idleTimeoutMillis: 30_000,
    // Covers both opening a connection and waiting for a free one; a server that
    // does not answer within it counts as one failed try (see retry.ts).
    connectionTimeoutMillis: 3_000,
    // A CLI command must be able to exit while its pool still holds idle connections.
    allowExitOnIdle: true,
    keepAlive: true,
    application_name: 'baton',
    lock_timeout: LOCK_WAIT_MS,
    statement_timeout: 30_000,
    idle_in_transaction_session_timeout: 60_000,
    types: BATON_TYPE_PARSERS,
  });
  // An idle connection that the server ends (a restart, a failover) is reported here;
  // without a listener Node would end the process. The pool has already dropped that
  // connection and the next transaction opens a new one, so a note on stderr is all.
  pool.on('error', (err) => {
    process.stderr.write(`baton: an idle PostgreSQL connection ended: ${describeFailure(err)}\n`);
  });
  return pool;
}

/**
 * Runs `fn` on a connection of the pool and gives the connection back, or closes it
 * when `fn` failed and `reusable` cannot bring it back to a clean state (by default a
 * failed connection is always closed: it may hold a half-read reply).
 */
export async function withClient<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  reusable: (client: pg.PoolClient, err: unknown) => boolean | Promise<boolean> = () => false,
): Promise<T> {
  const client = await pool.connect();
  // A checked-out connection that dies between two statements reports it as an 'error'
  // event, which would end the process if nobody listened; the next statement fails too.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  let keep = true;
  try {
    return await fn(client);
  } catch (err) {
    keep = await reusable(client, err);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(lost ?? (keep ? undefined : true));
  }
}
