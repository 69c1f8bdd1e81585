import type { Dialect, Row, SqlValue, Tx } from '../store.js';
import type { LoggedStatement } from './log-format.js';
import type { Statements } from './statements.js';

/** SQLite under the file lock: the whole database is already exclusively ours. */
export const SQLITE_DIALECT: Dialect = { name: 'sqlite', forUpdate: '', skipLocked: '' };

/**
 * Whether a statement only reads. Judged from its text, since sql.js does not expose
 * `sqlite3_stmt_readonly`; anything unsure counts as a change, which in a write is
 * merely recorded and replayed, and in a read refused.
 */
export function isReadOnlySql(sql: string): boolean {
  const text = sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, '');
  if (/^(select|values|explain)\b/i.test(text)) return true;
  if (/^with\b/i.test(text)) return !/\b(insert|update|delete|replace)\b/i.test(text);
  if (/^pragma\b/i.test(text)) return !text.includes('=');
  return false;
}

/**
 * Copies parameters and checks them: a value must survive the trip through the log
 * unchanged (JSON turns Infinity into null), or replay would diverge. `undefined`
 * becomes null, as the PostgreSQL driver does.
 */
export function checkedParams(params: readonly SqlValue[] | undefined): SqlValue[] {
  if (!params) return [];
  return params.map((value, i) => {
    if (value === undefined) return null;
    if (value === null || typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw new TypeError(`parameter ${i + 1} is not a string, finite number or null: ${String(value)}`);
  });
}

/**
 * A transaction over this process's copy of the database. A write transaction lists
 * every statement that changed data, in order, for the operation log; a read
 * transaction refuses them. It stops working once its transaction has ended, so a
 * promise left running by a rule cannot touch a later transaction.
 */
export class FileTx implements Tx {
  readonly dialect = SQLITE_DIALECT;
  private ended = false;

  /** `recorded` is the list a write fills; omit it for a read. */
  constructor(
    private readonly statements: Statements,
    readonly now: number,
    private readonly recorded?: LoggedStatement[],
  ) {}

  async all<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    const values = this.admit(sql, params);
    const rows = this.statements.all<T>(sql, values);
    this.record(sql, values);
    return rows;
  }

  async get<T = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    const values = this.admit(sql, params);
    const row = this.statements.get<T>(sql, values);
    this.record(sql, values);
    return row;
  }

  async run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    this.assertOpen();
    if (!this.recorded) throw new Error('a read transaction cannot change data (use store.write)');
    const values = checkedParams(params);
    const changes = this.statements.run(sql, values);
    // Recorded only once it succeeded: a failed statement changed nothing, here or in replay.
    this.recorded.push([sql, values]);
    return { changes };
  }

  /** Ends the transaction for this object; later calls throw. */
  end(): void {
    this.ended = true;
  }

  private admit(sql: string, params: readonly SqlValue[] | undefined): SqlValue[] {
    this.assertOpen();
    if (!this.recorded && !isReadOnlySql(sql)) {
      throw new Error('a read transaction cannot change data (use store.write)');
    }
    return checkedParams(params);
  }

  private record(sql: string, values: SqlValue[]): void {
    if (this.recorded && !isReadOnlySql(sql)) this.recorded.push([sql, values]);
  }

  private assertOpen(): void {
    if (this.ended) throw new Error('this transaction has already ended');
  }
}
