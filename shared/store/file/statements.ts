import type { Row, SqlValue } from '../store.js';
import type { SqlJsDatabase, SqlJsStatement } from './sql-js.js';

/** How many prepared statements one database keeps; the rules use a few dozen texts. */
const DEFAULT_CAPACITY = 256;

/** Statements that can change a table's columns, after which a query's column names may differ. */
const DDL = /^\s*(create|alter|drop)\b/i;

/**
 * Runs statements on one sql.js database through a cache of prepared statements keyed
 * by SQL text. Preparing is the costly part of a small statement in sql.js, and replay
 * runs the same few texts over and over. Least recently used statements are freed
 * beyond the capacity, since a statement built with a variable number of placeholders
 * would otherwise grow the cache without bound.
 *
 * Rows become objects with each query's column names read once, not once per row as
 * sql.js's `getAsObject` does (a call into WebAssembly and a string decoding per column);
 * they are read again after any statement that may have changed the schema.
 */
export class Statements {
  private readonly cache = new Map<string, SqlJsStatement>();
  private readonly columns = new Map<SqlJsStatement, string[]>();

  constructor(
    readonly db: SqlJsDatabase,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  /** All rows of a query, as objects keyed by column name. */
  all<T = Row>(sql: string, params: readonly SqlValue[]): T[] {
    const stmt = this.prepare(sql);
    try {
      stmt.bind(params as SqlValue[]);
      const rows: T[] = [];
      while (stmt.step()) rows.push(this.row(stmt) as T);
      return rows;
    } finally {
      stmt.reset();
    }
  }

  /** The first row of a query, or undefined. */
  get<T = Row>(sql: string, params: readonly SqlValue[]): T | undefined {
    const stmt = this.prepare(sql);
    try {
      stmt.bind(params as SqlValue[]);
      return stmt.step() ? (this.row(stmt) as T) : undefined;
    } finally {
      stmt.reset();
    }
  }

  /** Executes a statement to completion and answers how many rows it changed. */
  run(sql: string, params: readonly SqlValue[]): number {
    if (DDL.test(sql)) this.columns.clear();
    const stmt = this.prepare(sql);
    try {
      stmt.bind(params as SqlValue[]);
      while (stmt.step()) {
        // A statement with RETURNING yields rows; running it to the end applies all of it.
      }
      return this.db.getRowsModified();
    } finally {
      stmt.reset();
    }
  }

  /** Runs SQL without parameters and without caching (transaction control, pragmas, DDL). */
  exec(sql: string): void {
    if (DDL.test(sql)) this.columns.clear();
    this.db.exec(sql);
  }

  /** Frees every cached statement (before the database is closed or replaced). */
  clear(): void {
    for (const stmt of this.cache.values()) stmt.free();
    this.cache.clear();
    this.columns.clear();
  }

  /** The current row of a stepped statement as an object keyed by column name. */
  private row(stmt: SqlJsStatement): Row {
    const values = stmt.get() as SqlValue[];
    let names = this.columns.get(stmt);
    if (names?.length !== values.length) {
      names = stmt.getColumnNames();
      this.columns.set(stmt, names);
    }
    const row: Row = {};
    for (let i = 0; i < values.length; i++) row[names[i]] = values[i];
    return row;
  }

  private prepare(sql: string): SqlJsStatement {
    const cached = this.cache.get(sql);
    if (cached) {
      // Re-inserting keeps the Map in least-recently-used order.
      this.cache.delete(sql);
      this.cache.set(sql, cached);
      return cached;
    }
    const stmt = this.db.prepare(sql);
    this.cache.set(sql, stmt);
    if (this.cache.size > this.capacity) {
      const [oldestSql, oldest] = this.cache.entries().next().value as [string, SqlJsStatement];
      this.cache.delete(oldestSql);
      this.columns.delete(oldest);
      oldest.free();
    }
    return stmt;
  }
}
