import type pg from 'pg';
import { StoreUnavailableError } from '../../errors.js';
import { describeFailure } from './failures.js';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from './schema.js';

/**
 * Key of the transaction-level advisory lock that migrations run under, so that two
 * processes opening a new database at once apply each migration exactly once.
 * "Bato" in ASCII, the file store's application id.
 */
export const MIGRATION_LOCK_KEY = 0x4261746f;

/**
 * Brings the database to `POSTGRES_SCHEMA_VERSION` and returns that version. Refuses,
 * without changing anything, a database whose schema is newer than this code, and one
 * that holds tables of the same names that are not Baton's.
 */
export async function migrate(client: pg.ClientBase, location: string): Promise<number> {
  // Most opens find the schema current: answer them without queueing on the lock.
  const seen = await readSchemaVersion(client, location);
  if (seen === POSTGRES_SCHEMA_VERSION) return seen;
  refuseNewer(seen, location);

  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // Another process may have migrated while this one waited for the lock.
    const current = await readSchemaVersion(client, location);
    refuseNewer(current, location);
    for (let version = current + 1; version <= POSTGRES_SCHEMA_VERSION; version++) {
      await applyMigration(client, version, location);
    }
    await client.query(
      `INSERT INTO meta (name, value) VALUES ('schema_version', $1)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      [String(POSTGRES_SCHEMA_VERSION)],
    );
    await client.query('COMMIT');
    return POSTGRES_SCHEMA_VERSION;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

async function applyMigration(client: pg.ClientBase, version: number, location: string): Promise<void> {
  for (const statement of POSTGRES_MIGRATIONS[version - 1]) {
    try {
      await client.query(statement);
    } catch (err) {
      throw new StoreUnavailableError(location, `migration ${version} failed: ${describeFailure(err)}`);
    }
  }
}

/**
 * The schema version recorded in the database: 0 for an empty one. A `meta` table
 * without the version row, or an `issues` table without `meta`, belongs to something
 * else, and Baton will not build on top of it.
 */
async function readSchemaVersion(client: pg.ClientBase, location: string): Promise<number> {
  // Read from pg_class rather than by name (to_regclass): a name lookup that misses
  // leaves a negative entry in this connection's catalog cache, which a transaction
  // still believes after another process has created the table and let the lock go.
  const tables = await client.query<{ relname: string }>(
    `SELECT c.relname FROM pg_catalog.pg_class c
     WHERE c.relname IN ('meta', 'issues')
       AND c.relnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = current_schema())`,
  );
  const names = new Set(tables.rows.map((r) => r.relname));
  if (!names.has('meta')) {
    if (names.has('issues')) throw new StoreUnavailableError(location, 'it has an issues table but is not a Baton database');
    return 0;
  }
  const row = await client.query<{ value: string }>(`SELECT value FROM meta WHERE name = 'schema_version'`);
  const version = Number(row.rows[0]?.value);
  if (!Number.isInteger(version) || version < 1) {
    throw new StoreUnavailableError(location, 'it has a meta table but is not a Baton database');
  }
  return version;
}

function refuseNewer(version: number, location: string): void {
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new StoreUnavailableError(
      location,
      `its schema version ${version} is newer than this Baton understands (${POSTGRES_SCHEMA_VERSION}); upgrade Baton`,
    );
  }
}
