import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../../shared/store/file/database.js';
import { loadSqlJs } from '../../../shared/store/file/sql-js.js';
import { migrate } from '../../../shared/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../../shared/store/postgres/schema.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../../postgres/test-database.js';
import { normalizeSql, postgresShape, type SchemaShape, sqliteShape } from './schema-shape.js';

/*
 * The two stores write their schemas separately (shared/store/sqlite-schema.ts and
 * shared/store/postgres/schema.ts) and run the same rules on them, so the tables,
 * columns, keys and indexes must agree. Everything is read from what the migrations
 * build; the only tables named here are those one store has for itself.
 */

/** The file store's own: where a snapshot records its log position, and forwarded writes (only file-store servers forward). */
const FILE_STORE_ONLY = new Set(['file_store_state', 'forwarded']);
/** PostgreSQL's own: the change counter its triggers move (store/postgres/store.ts). */
const POSTGRES_ONLY = new Set(['store_changes']);

async function fileStoreShape(): Promise<SchemaShape> {
  const { db } = createDatabase(await loadSqlJs());
  try {
    return sqliteShape(db, FILE_STORE_ONLY);
  } finally {
    db.close();
  }
}

/**
 * PostgreSQL's migrations as SQLite reads them: its identity columns as plain row ids, its
 * functions and triggers (the change counter's) left out. SQLite's own parser then gives
 * the tables, columns and indexes that DDL declares, without a PostgreSQL server.
 */
async function postgresDdlShape(): Promise<SchemaShape> {
  const sqlJs = await loadSqlJs();
  const db = new sqlJs.Database();
  try {
    for (const statement of POSTGRES_MIGRATIONS.flat()) {
      if (/^\s*CREATE\s+(OR\s+REPLACE\s+)?(CONSTRAINT\s+)?(FUNCTION|TRIGGER)\b/i.test(statement)) continue;
      const sqlite = statement.replace(/\s+GENERATED\s+(BY\s+DEFAULT|ALWAYS)\s+AS\s+IDENTITY/gi, '');
      try {
        db.exec(sqlite);
      } catch (error) {
        throw new Error(`this PostgreSQL statement has no SQLite reading here (extend postgresDdlShape): ${statement}\n${String(error)}`);
      }
    }
    return sqliteShape(db, POSTGRES_ONLY);
  } finally {
    db.close();
  }
}

describe('schema parity of the file store and the PostgreSQL store', () => {
  it('reads every table, column, key and index of a schema, so a difference would show', async () => {
    const shape = await fileStoreShape();
    expect(Object.keys(shape).length).toBeGreaterThan(5);
    const withIndexes = Object.values(shape).filter((t) => Object.keys(t.indexes).length > 0);
    expect(withIndexes.length).toBeGreaterThan(0);
    expect(Object.values(shape).some((t) => t.primaryKey.length > 1)).toBe(true);
    expect(Object.values(shape).some((t) => Object.values(t.indexes).some((i) => i.where !== null))).toBe(true);
    expect(Object.values(shape).some((t) => Object.keys(t.indexes).some((k) => k.startsWith('unique(')))).toBe(true);
  });

  it('spells a PostgreSQL predicate and default as SQLite does', () => {
    expect(normalizeSql(`(status = ANY (ARRAY['todo'::text, 'doing'::text]))`)).toBe(`status IN ('todo', 'doing')`);
    expect(normalizeSql(`'[]'::text`)).toBe(`'[]'`);
    expect(normalizeSql(`(status = 'review'::text)`)).toBe(`status = 'review'`);
  });

  it('declares in its PostgreSQL DDL the tables, columns, keys and indexes the file store creates', async () => {
    expect(await postgresDdlShape()).toEqual(await fileStoreShape());
  });

  describe.skipIf(!ADMIN_URL)('on a PostgreSQL server', () => {
    let database: TestDatabase | undefined;
    afterAll(async () => database?.drop());

    it('creates through its migrations the tables, columns, keys and indexes the file store creates', async () => {
      database = await createTestDatabase();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await migrate(client, database.url);
        expect(await postgresShape(client, POSTGRES_ONLY)).toEqual(await fileStoreShape());
      } finally {
        await client.end();
      }
    });
  });
});
