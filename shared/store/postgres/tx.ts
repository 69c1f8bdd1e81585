import type pg from 'pg';
import type { Row, SqlValue, Tx } from '../store.js';
import { POSTGRES_DIALECT } from './dialect.js';
import { toNumbered } from './placeholders.js';

/**
 * The database clock in integer milliseconds. Every process of a team reads leases
 * against this one clock, so a machine whose own clock is off by minutes still agrees
 * with the others on when a lease expires.
 */
export const DATABASE_NOW_SQL = `SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now`;

/** A statement that may wait for another transaction's row lock (SKIP LOCKED never waits). */
const WAITS_FOR_LOCK = / FOR UPDATE(?! SKIP LOCKED)/;
/** A locking statement slower than this spent its time waiting for the lock. */
const LOCK_WAIT_MS = 10;

/**
 * One transaction on one pooled connection: the rules' `?` statements, numbered for
 * PostgreSQL. Usable only while the store's `read` or `write` that made it runs.
 */
export class PostgresTx implements Tx {
  readonly dialect = POSTGRES_DIALECT;
  private finished = false;
  // Statements of one transaction go out one after another. The rules may start several
  // at once (Promise.all); pg would queue them too, but warns that pg 9 will not.
  private tail: Promise<unknown> = Promise.resolve();
  private time: number;
  private readonly begunAt = performance.now();

  constructor(
    private readonly client: pg.ClientBase,
    private readonly begunNow: number,
    private readonly writable: boolean,
  ) {
    this.time = begunNow;
  }

  /**
   * The database clock when the transaction began, moved on past every wait for a row
   * lock: a heartbeat that queued behind another write for seconds is judged when it got
   * the row, not when it asked, and what it writes is not stamped earlier than
   * the write it waited for.
   */
  get now(): number {
    return this.time;
  }

  async all<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const result = await this.query(sql, params);
    return result.rows as T[];
  }

  async get<T = Row>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    const result = await this.query(sql, params);
    return result.rows[0] as T | undefined;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    if (!this.writable) throw new Error(`A read transaction cannot change data: ${sql}`);
    const result = await this.query(sql, params);
    return { changes: result.rowCount ?? 0 };
  }

  /** Called by the store when the transaction ends: a statement sent later is a bug. */
  finish(): void {
    this.finished = true;
  }

  private query(sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    if (this.finished) throw new Error(`Statement after its transaction ended: ${sql}`);
    const numbered = toNumbered(sql);
    if (numbered.count !== params.length) {
      throw new Error(`The statement has ${numbered.count} placeholders but ${params.length} values: ${sql}`);
    }
    const sent = this.tail.then(async () => {
      const started = performance.now();
      const result = await this.client.query(numbered.text, params as SqlValue[]);
      const finished = performance.now();
      if (finished - started > LOCK_WAIT_MS && WAITS_FOR_LOCK.test(sql)) this.time = this.begunNow + Math.round(finished - this.begunAt);
      return result;
    });
    this.tail = sent.catch(() => undefined);
    return sent;
  }
}
