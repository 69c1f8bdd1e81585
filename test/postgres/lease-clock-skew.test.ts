import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Result } from '../../shared/result.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { ClaimResult, ClaimStatus, Issue } from '../../shared/types.js';
import { BatonProcess, bundleBatonProcess } from './baton-processes.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';
import { sleep } from '../helpers/wait.js';

const FIVE_MINUTES = 5 * 60_000;
const LEASE_SECONDS = 2;

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.error)}`);
  return result.value;
}

// Two servers on machines whose clocks disagree by ten minutes: one five minutes fast,
// one five minutes slow. Leases follow the database clock, so both agree on when a
// lease ends; with their own clocks the fast one would take a live lease of the slow
// one at once, and the slow one would wait ten minutes for an expired lease of the fast one.
describe.skipIf(!ADMIN_URL)('PostgreSQL store: leases between servers whose clocks disagree', () => {
  let db: TestDatabase;
  let bundle: Awaited<ReturnType<typeof bundleBatonProcess>>;
  let cwd: string;
  let fast: BatonProcess;
  let slow: BatonProcess;

  beforeAll(async () => {
    db = await createTestDatabase();
    await (await openPostgresStore({ url: db.url })).close();
    bundle = await bundleBatonProcess();
    cwd = mkdtempSync(join(tmpdir(), 'baton-pg-cwd-'));
    const common = { databaseUrl: db.url, leaseSeconds: LEASE_SECONDS, cwd };
    fast = BatonProcess.start(bundle.file, { ...common, agent: 'fast', clockSkewMs: FIVE_MINUTES });
    slow = BatonProcess.start(bundle.file, { ...common, agent: 'slow', clockSkewMs: -FIVE_MINUTES });
    await Promise.all([fast.ready, slow.ready]);
  });
  afterAll(async () => {
    await Promise.all([fast?.stop(), slow?.stop()]);
    await db?.drop();
    bundle?.remove();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  async function createIssue(title: string): Promise<string> {
    return value(await fast.call<Result<{ issue: Issue }>>('createIssue', { title })).issue.key;
  }

  it('stamps a lease with the database time, not the clock of the server that took it', async () => {
    const key = await createIssue('stamped by the database');
    const before = await db.now();
    const claimed = value(await fast.call<Result<ClaimResult>>('claimIssue', { key }));
    const after = await db.now();
    const claimedAt = Date.parse(claimed.lease.claimedAt);
    expect(claimedAt).toBeGreaterThanOrEqual(before);
    expect(claimedAt).toBeLessThanOrEqual(after);
    expect(Date.parse(claimed.lease.expiresAt) - claimedAt).toBe(LEASE_SECONDS * 1000);
  });

  it('keeps a live lease of the slow server from the fast server until it expires by the database clock', async () => {
    const key = await createIssue('held by the slow server');
    const held = value(await slow.call<Result<ClaimResult>>('claimIssue', { key }));

    const early = await fast.call<Result<ClaimResult>>('claimIssue', { key });
    expect(early.ok ? 'claimed' : early.error.code).toBe('ALREADY_CLAIMED');
    expect(value(await fast.call<Result<{ reclaimed: string[] }>>('sweep')).reclaimed).not.toContain(key);
    const seen = value(await fast.call<Result<ClaimStatus>>('checkClaim', { key }));
    expect(seen.held).toBe(true);
    expect(seen.secondsLeft).toBeLessThanOrEqual(LEASE_SECONDS);

    await sleep(Date.parse(held.lease.expiresAt) - (await db.now()) + 200);
    const late = value(await fast.call<Result<ClaimResult>>('claimIssue', { key }));
    expect(late.lease.fence).toBe(held.lease.fence + 1);
    const lost = await slow.call<Result<unknown>>('heartbeat', { key, claimToken: held.lease.claimToken });
    expect(lost.ok ? 'renewed' : lost.error.code).toBe('CLAIM_LOST');
  });

  it('lets the slow server take an expired lease of the fast server as soon as the database clock says so', async () => {
    const key = await createIssue('held by the fast server');
    const held = value(await fast.call<Result<ClaimResult>>('claimIssue', { key }));

    const early = await slow.call<Result<ClaimResult>>('claimIssue', { key });
    expect(early.ok ? 'claimed' : early.error.code).toBe('ALREADY_CLAIMED');

    await sleep(Date.parse(held.lease.expiresAt) - (await db.now()) + 200);
    // The slow server's own clock still reads five minutes before the expiry.
    expect(await slow.call<number>('localNow')).toBeLessThan(Date.parse(held.lease.expiresAt));
    const seen = value(await slow.call<Result<ClaimStatus>>('checkClaim', { key }));
    expect(seen.held).toBe(false);
    expect(value(await slow.call<Result<{ reclaimed: string[] }>>('sweep')).reclaimed).toContain(key);
    const taken = value(await slow.call<Result<ClaimResult>>('claimIssue', { key }));
    expect(taken.lease.agent).toBe('slow');
  });
});
