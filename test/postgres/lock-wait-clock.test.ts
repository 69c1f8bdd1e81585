import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

// A write that waits for another transaction's row lock is judged, and stamped, at the
// time it got the row: its lease may have run out while it waited, and what it records
// must not read as older than the write it waited for.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!ADMIN_URL)('PostgreSQL store: the time of a write that waited for a row lock', () => {
  let db: TestDatabase;
  let store: Store;
  let locker: pg.Client;

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

  function session(agent: string, leaseSeconds = DEFAULTS.leaseSeconds): Baton {
    return new Baton({ store, caller: { agent, session: `${agent}-session`, renewer: null, worktree: null }, config: { ...DEFAULTS, leaseSeconds } });
  }

  /** Claims a new issue; returns its key and token. */
  async function claimed(agent: Baton): Promise<{ key: string; claimToken: string }> {
    const created = await session('planner').createIssue({ title: 'Held' });
    if (!created.ok) throw new Error(created.error.message);
    const claim = await agent.claimIssue({ key: created.value.issue.key });
    if (!claim.ok) throw new Error(claim.error.message);
    return { key: claim.value.issue.key, claimToken: claim.value.lease.claimToken! };
  }

  /** Holds the issue's row locked, as another write does, for `ms`; resolves with the database time it let go. */
  async function holdRow(key: string, ms: number): Promise<number> {
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM issues WHERE key = $1 FOR UPDATE', [key]);
    await sleep(ms);
    const released = await db.now();
    await locker.query('COMMIT');
    return released;
  }

  it('refuses a heartbeat whose lease ran out while it waited for the row', async () => {
    const alice = session('alice', 1);
    const { key, claimToken } = await claimed(alice);
    const held = holdRow(key, 1_500);
    await sleep(50);
    const beat = await alice.heartbeat({ key, claimToken });
    await held;
    expect(beat.ok).toBe(false);
    expect(!beat.ok && beat.error.code).toBe('CLAIM_LOST');
  });

  it('renews a heartbeat that waited from the time it got the row', async () => {
    const alice = session('alice');
    const { key, claimToken } = await claimed(alice);
    const held = holdRow(key, 600);
    await sleep(50);
    const beat = await alice.heartbeat({ key, claimToken });
    const released = await held;
    expect(beat.ok).toBe(true);
    const expiresAt = beat.ok ? Date.parse(beat.value.lease.expiresAt) : 0;
    // It got the row after `released`, give or take a round trip to the database.
    expect(expiresAt).toBeGreaterThanOrEqual(released + DEFAULTS.leaseSeconds * 1000 - 20);
  });
});
