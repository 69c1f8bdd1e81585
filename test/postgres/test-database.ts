import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The server the PostgreSQL tests use (`test/postgres/pg-server.sh` prints it). Absent on
 * machines without PostgreSQL, where those tests are skipped.
 */
export const ADMIN_URL = process.env.BATON_TEST_DATABASE_URL;

/** A database of its own for one test file, so files running side by side never meet. */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  /** Runs one statement on it outside any store (a fresh connection each time). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
  /** The server's clock in epoch milliseconds, read outside any store. */
  now(): Promise<number>;
  drop(): Promise<void>;
}

async function onAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  if (!ADMIN_URL) throw new Error('BATON_TEST_DATABASE_URL is not set');
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database with a random name on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `baton_t_${randomBytes(6).toString('hex')}`;
  await onAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL!);
  url.pathname = `/${name}`;
  const database: TestDatabase = {
    url: url.toString(),
    name,
    async query(sql, params) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return await client.query(sql, params);
      } finally {
        await client.end();
      }
    },
    async now() {
      const result = await database.query<{ now: string }>(`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now`);
      return Number(result.rows[0].now);
    },
    async drop() {
      // FORCE ends connections a failed test may have left open.
      await onAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
  return database;
}
