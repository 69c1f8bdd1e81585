import { describe, expect, it } from 'vitest';
import type { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { rowLockerFixture } from './row-locker.js';
import { ADMIN_URL } from './test-database.js';
import { sleep } from '../helpers/wait.js';

// A write that waits for another transaction's row lock is judged, and stamped, at the
// time it got the row: its lease may have run out while it waited, and what it records
// must not read as older than the write it waited for.

describe.skipIf(!ADMIN_URL)('PostgreSQL store: the time of a write that waited for a row lock', () => {
  const fixture = rowLockerFixture();

  /** Claims a new issue; returns its key and token. */
  async function claimed(agent: Baton): Promise<{ key: string; claimToken: string }> {
    const created = await fixture.session('planner').createIssue({ title: 'Held' });
    if (!created.ok) throw new Error(created.error.message);
    const claim = await agent.claimIssue({ key: created.value.issue.key });
    if (!claim.ok) throw new Error(claim.error.message);
    return { key: claim.value.issue.key, claimToken: claim.value.lease.claimToken! };
  }

  /** Holds the issue's row locked, as another write does, for `ms`; resolves with the database time it let go. */
  async function holdRow(key: string, ms: number): Promise<number> {
    await fixture.locker.query('BEGIN');
    await fixture.locker.query('SELECT id FROM issues WHERE key = $1 FOR UPDATE', [key]);
    await sleep(ms);
    const released = await fixture.db.now();
    await fixture.locker.query('COMMIT');
    return released;
  }

  it('refuses a heartbeat whose lease ran out while it waited for the row', async () => {
    const alice = fixture.session('alice', 1);
    const { key, claimToken } = await claimed(alice);
    const held = holdRow(key, 1_500);
    await sleep(50);
    const beat = await alice.heartbeat({ key, claimToken });
    await held;
    expect(beat.ok).toBe(false);
    expect(!beat.ok && beat.error.code).toBe('CLAIM_LOST');
  });

  it('renews a heartbeat that waited from the time it got the row', async () => {
    const alice = fixture.session('alice');
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
