import pg from 'pg';
import { afterEach, beforeEach } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/**
 * For every test of the file: a fresh database, a store on it, and a connection of its
 * own (`locker`) with which a test holds rows locked as another write would; all closed
 * and dropped after the test.
 */
export function rowLockerFixture() {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  let locker: pg.Client | undefined;
  beforeEach(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ url: db.url });
    locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
  });
  afterEach(async () => {
    await locker?.end();
    await store?.close();
    await db?.drop();
  });
  const current = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('rowLockerFixture is used outside a test');
    return value;
  };
  return {
    get db(): TestDatabase {
      return current(db);
    },
    get locker(): pg.Client {
      return current(locker);
    },
    /** A session of `agent` on the store, with the default configuration unless `leaseSeconds` is given. */
    session(agent: string, leaseSeconds = DEFAULTS.leaseSeconds): Baton {
      const caller = { agent, session: `${agent}-session`, renewer: null, worktree: null };
      return new Baton({ store: current(store), caller, config: { ...DEFAULTS, leaseSeconds } });
    },
  };
}
