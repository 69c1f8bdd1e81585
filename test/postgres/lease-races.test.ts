import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { gate, holdFirst, steeredStore, type Steering } from './steered-store.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

// A renewer (the editor, `baton watchdog`) renews leases without locking their issue, so on
// PostgreSQL its renewal can commit between a sweep's or a claim's reading of a lease as
// expired and its clearing of it. Each test lines the two transactions up in that order;
// `now` is steered so that the renewer still finds the lease live and the other finds it expired.

describe.skipIf(!ADMIN_URL)('PostgreSQL store: a renewal racing a sweep or a claim', () => {
  let db: TestDatabase;
  let store: Store;
  let sessions = 0;

  // A database per test: a sweep clears every lease expired at its `now`, other tests' too.
  beforeEach(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ url: db.url });
  });
  afterEach(async () => {
    await store?.close();
    await db?.drop();
  });

  function session(agent: string, steering: Steering = {}, renewer: string | null = null): Baton {
    return new Baton({
      store: steeredStore(store, steering),
      caller: { agent, session: `race-${++sessions}`, renewer, worktree: null },
      config: DEFAULTS,
    });
  }

  /** A claimed issue, with its holder and the lease's expiry (epoch ms). */
  async function claimedIssue() {
    const holder = session('holder', {}, 'vscode:w1');
    const created = await holder.createIssue({ title: 'Raced' });
    if (!created.ok) throw new Error(created.error.message);
    const claimed = await holder.claimIssue({ key: created.value.issue.key });
    if (!claimed.ok) throw new Error(claimed.error.message);
    return { holder, key: claimed.value.issue.key, token: claimed.value.lease.claimToken!, expiresAt: Date.parse(claimed.value.lease.expiresAt) };
  }

  async function eventsOf(key: string, type: string): Promise<number> {
    const rows = await db.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE key = $1 AND type = $2', [key, type]);
    return Number(rows.rows[0].n);
  }

  it('keeps a lease that a renewal renewed after a sweep judged it expired', async () => {
    const { holder, key, token, expiresAt } = await claimedIssue();
    const atDelete = gate();
    const sweeper = session('sweeper', { now: () => expiresAt + 1_000, before: holdFirst(/^DELETE FROM leases/, atDelete) });
    const renewer = session('renewer', { now: () => expiresAt - 1_000 });

    const swept = sweeper.sweep();
    await atDelete.reached;
    const renewed = await renewer.renewLeases({ sessions: [holder.caller.session] }).finally(atDelete.open);

    expect(renewed.ok && renewed.value.leases.map((l) => l.key)).toEqual([key]);
    expect(await swept).toEqual({ ok: true, value: { reclaimed: [] } });
    expect((await holder.heartbeat({ key, claimToken: token })).ok).toBe(true);
    expect(await eventsOf(key, 'reclaimed')).toBe(0);
  });

  it('does not report as renewed a lease that a sweep cleared after the renewer read it', async () => {
    const { holder, key, token, expiresAt } = await claimedIssue();
    const atUpdate = gate();
    const renewer = session('renewer', { now: () => expiresAt - 1_000, before: holdFirst(/^UPDATE leases SET last_renewed_at/, atUpdate) });
    const sweeper = session('sweeper', { now: () => expiresAt + 1_000 });

    const renewing = renewer.renewLeases({ sessions: [holder.caller.session] });
    await atUpdate.reached;
    const swept = await sweeper.sweep().finally(atUpdate.open);
    expect(swept).toEqual({ ok: true, value: { reclaimed: [key] } });

    expect(await renewing).toEqual({ ok: true, value: { leases: [] } });
    const heartbeat = await holder.heartbeat({ key, claimToken: token });
    expect(heartbeat.ok ? 'ok' : heartbeat.error).toMatchObject({ code: 'CLAIM_LOST', reason: 'reclaimed' });
  });

  it('refuses a claim that found the lease expired once a renewal of it has committed', async () => {
    const { holder, key, token, expiresAt } = await claimedIssue();
    const atDelete = gate();
    const claimer = session('claimer', { now: () => expiresAt + 1_000, before: holdFirst(/^DELETE FROM leases/, atDelete) });
    const renewer = session('renewer', { now: () => expiresAt - 1_000 });

    const claiming = claimer.claimIssue({ key });
    await atDelete.reached;
    const renewed = await renewer.renewLeases({ sessions: [holder.caller.session] }).finally(atDelete.open);
    expect(renewed.ok).toBe(true);

    const claimed = await claiming;
    expect(claimed.ok ? 'claimed' : claimed.error).toMatchObject({ code: 'ALREADY_CLAIMED', holder: { agent: 'holder' } });
    expect((await holder.heartbeat({ key, claimToken: token })).ok).toBe(true);
    expect(await eventsOf(key, 'reclaimed')).toBe(0);
  });
});
