import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../shared/clock.js';
import type { BatonConfig } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store, Tx } from '../../shared/store/store.js';
import type { Harness } from '../helpers/core.js';
import { sessionsOn } from '../helpers/harness-sessions.js';
import { testDir } from '../helpers/test-dir.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

const TABLES = ['meta', 'issues', 'issue_labels', 'relations', 'leases', 'tokens', 'checkpoints', 'comments', 'events', 'sessions', 'requests'];

let database: Promise<TestDatabase> | null = null;
const opened: Store[] = [];

/**
 * The core tests' harness (test/helpers/core.ts) over the PostgreSQL store, so every rule
 * runs its SQL on PostgreSQL too. Each harness gets a schema of its own in one database.
 *
 * Two stand-ins keep the core tests' assumptions: the hand-moved clock is handed to the
 * rules as `tx.now` (the real store reads the database clock, which a test cannot move),
 * and after every write the tables are dumped as JSON beside `dbPath`, so a test that
 * searches "the database files" for a secret searches the database's content.
 */
export async function postgresHarness(config: Partial<BatonConfig> = {}): Promise<Harness> {
  database ??= createTestDatabase();
  const db = await database;
  const schema = `h_${randomBytes(5).toString('hex')}`;
  await db.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(db.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const inner = await openPostgresStore({ url: url.toString(), poolMax: 2 });
  opened.push(inner);
  const clock = new ManualClock();
  const dir = testDir('baton-pg-core-');
  const store = clockedStore(inner, clock, dir);
  return {
    clock,
    store,
    dbPath: join(dir, 'baton.db'),
    session: sessionsOn(store, config),
  };
}

/** Closes the stores opened since the last call. */
export async function closeHarnessStores(): Promise<void> {
  for (const store of opened.splice(0)) await store.close();
}

/** Drops the database of the harnesses. */
export async function dropHarnessDatabase(): Promise<void> {
  await closeHarnessStores();
  const db = await database;
  database = null;
  await db?.drop();
}

function clockedStore(inner: Store, clock: ManualClock, dir: string): Store {
  const clocked = (tx: Tx): Tx => ({
    now: clock.now(),
    dialect: tx.dialect,
    all: (sql, params) => tx.all(sql, params),
    get: (sql, params) => tx.get(sql, params),
    run: (sql, params) => tx.run(sql, params),
  });
  const dump = async () => {
    const content = await inner.read(async (tx) => {
      const tables: Record<string, unknown[]> = {};
      for (const table of TABLES) tables[table] = await tx.all(`SELECT * FROM ${table}`);
      return tables;
    });
    writeFileSync(join(dir, 'baton.db'), JSON.stringify(content));
    writeFileSync(join(dir, 'version'), await inner.version());
  };
  return {
    backend: inner.backend,
    location: inner.location,
    read: (fn) => inner.read((tx) => fn(clocked(tx))),
    async write(fn) {
      const result = await inner.write((tx) => fn(clocked(tx)));
      await dump();
      return result;
    },
    version: () => inner.version(),
    analyze: () => inner.analyze(),
    compact: () => inner.compact(),
    info: () => inner.info(),
    close: () => inner.close(),
  };
}
