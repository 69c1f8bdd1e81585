import type pg from 'pg';
import { StoreUnavailableError } from '../../errors.js';
import type { Result } from '../../result.js';
import type { Store, StoreInfo, Tx } from '../store.js';
import { classifyFailure, describeFailure, isWriteRace } from './failures.js';
import { withClient } from './pool.js';
import { sleep, withConnectRetries } from './retry.js';
import { DATABASE_NOW_SQL, PostgresTx } from './tx.js';

// Writers run at READ COMMITTED and lock what they change (the dialect's FOR UPDATE):
// stricter isolation would turn every dispatch race into a retried serialization failure.
const BEGIN_WRITE = 'BEGIN ISOLATION LEVEL READ COMMITTED';
// A read sees one snapshot for all its statements, and cannot change anything.
const BEGIN_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** Runs of a write that lost a race (deadlock, serialization, duplicate key), the first included. */
const CONFLICT_ATTEMPTS = 5;

type Mode = 'read' | 'write';

/** The store over a PostgreSQL database; made by `openPostgresStore`. */
export class PostgresStore implements Store {
  readonly backend = 'postgres' as const;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    private readonly schemaVersion: number,
    private readonly clockSkewMs: number,
  ) {}

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.transaction('read', fn, () => false);
  }

  write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
    return this.transaction('write', fn, (result) => result.ok);
  }

  /**
   * The `store_changes` counter, which every committed transaction that changed data
   * moved by one (see schema.ts). Read from the committed state, so a caller that sees
   * it move and then reads finds the change.
   */
  version(): Promise<string> {
    return withConnectRetries(async () => {
      const result = await this.pool.query<{ value: number }>('SELECT value FROM store_changes WHERE id = 1');
      return String(result.rows[0].value);
    }, this.location);
  }

  async info(): Promise<StoreInfo> {
    return withConnectRetries(async () => {
      const sentAt = Date.now() + this.clockSkewMs;
      const result = await this.pool.query<{ now: number; server_version: string }>(
        `SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now, current_setting('server_version') AS server_version`,
      );
      const receivedAt = Date.now() + this.clockSkewMs;
      const { now, server_version } = result.rows[0];
      return {
        backend: 'postgres',
        location: this.location,
        schemaVersion: this.schemaVersion,
        serverVersion: server_version,
        // How far this machine's clock is from the database's (see clock-offset.ts): leases
        // follow the database clock, so a large offset is harmless to them, but countdowns
        // on screen correct for it and `baton doctor` warns of it.
        clockOffsetMs: Math.round((sentAt + receivedAt) / 2 - now),
      };
    }, this.location);
  }

  /**
   * Until autovacuum gets to a freshly filled table, PostgreSQL plans as if it were empty:
   * after a large import, dispatch joined every `blocks` relation, hundreds of times
   * slower than once analysed. Only the tables dispatch plans over: the database
   * may hold other applications' tables too.
   */
  async analyze(): Promise<void> {
    await withConnectRetries(async () => {
      await this.pool.query('ANALYZE issues, issue_labels, relations, leases');
    }, this.location);
  }

  async compact(): Promise<void> {
    await withConnectRetries(async () => {
      // Outside any transaction, as VACUUM must be; it only marks space reusable, taking no lock that stops writers.
      await this.pool.query('VACUUM (ANALYZE) events, checkpoints, tokens, history_summary, requests');
    }, this.location);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /**
   * One read or write, retried whole while the server cannot be reached (before COMMIT
   * was sent) and, for writes, while it loses a race to another writer. `keep` decides from the
   * result whether to commit.
   */
  private async transaction<R>(mode: Mode, fn: (tx: Tx) => Promise<R>, keep: (result: R) => boolean): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withConnectRetries(() => this.attempt(mode, fn, keep), this.location);
      } catch (err) {
        const kind = classifyFailure(err);
        if (kind === 'conflict' && attempt < CONFLICT_ATTEMPTS) {
          await sleep(Math.random() * 20 * attempt);
          continue;
        }
        // A deadlock or serialization failure on every attempt is contention, not a bug, and
        // every attempt was rolled back: the caller answers STORE_UNAVAILABLE rather than
        // handing a raw database error to an agent. A duplicate key that keeps coming back is
        // no race but a bug, and is raised as it is.
        if (kind === 'conflict' && isWriteRace(err)) {
          throw new StoreUnavailableError(
            this.location,
            `the database kept reporting conflicting writes (${describeFailure(err)}) on ${CONFLICT_ATTEMPTS} attempts; nothing was changed`,
          );
        }
        if (kind === 'busy') {
          throw new StoreUnavailableError(this.location, `locked or busy past the wait limit: ${describeFailure(err)}`);
        }
        throw err;
      }
    }
  }

  private attempt<R>(mode: Mode, fn: (tx: Tx) => Promise<R>, keep: (result: R) => boolean): Promise<R> {
    return withClient(
      this.pool,
      async (client) => {
        const begun = (await client.query(`${mode === 'write' ? BEGIN_WRITE : BEGIN_READ}; ${DATABASE_NOW_SQL}`)) as unknown as
          pg.QueryResult<{ now: number }>[];
        const tx = new PostgresTx(client, begun[1].rows[0].now, mode === 'write');
        let result: R;
        try {
          result = await fn(tx);
        } finally {
          tx.finish();
        }
        if (mode === 'write' && keep(result)) await this.commit(client);
        else await client.query('ROLLBACK');
        return result;
      },
      rollbackQuietly,
    );
  }

  private async commit(client: pg.PoolClient): Promise<void> {
    let result: pg.QueryResult;
    try {
      result = await client.query('COMMIT');
    } catch (err) {
      if (classifyFailure(err) !== 'connection') throw err;
      // Not retried: the server may have committed before the connection went.
      throw new StoreUnavailableError(
        this.location,
        `the connection was lost during COMMIT, so the write may or may not have been applied: ${describeFailure(err)}`,
      );
    }
    // PostgreSQL answers COMMIT of a transaction in which a statement failed with
    // ROLLBACK, not an error: a rule that caught that failure and still returned ok
    // would otherwise be told its write was kept.
    if (result.command !== 'COMMIT') {
      throw new Error('The write was rolled back: a statement in it failed, and the failure was caught and ignored');
    }
  }
}

/** Ends a failed transaction; says whether the connection can serve the next one. */
async function rollbackQuietly(client: pg.PoolClient): Promise<boolean> {
  try {
    await client.query('ROLLBACK');
    return true;
  } catch {
    return false;
  }
}
