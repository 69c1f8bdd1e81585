import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { call, ok, refused } from '../helpers/tools.js';
import { sleep } from '../helpers/wait.js';

// Real server processes in two worktrees of one repository, sharing its database.
let repo: ScratchRepo;
let servers: SpawnedServer[];

beforeEach(() => {
  repo = makeRepo({ worktrees: ['wt-b'] });
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  repo.remove();
});

async function serve(agent: string, options: { cwd?: string; lease?: number; sweepMs?: number } = {}) {
  const server = await spawnServer({
    cwd: options.cwd ?? repo.main,
    env: {
      BATON_AGENT: agent,
      BATON_LEASE_SECONDS: String(options.lease ?? 60),
      BATON_SWEEP_MS: String(options.sweepMs ?? 60_000),
    },
  });
  servers.push(server);
  return server.client;
}

const ms = (iso: string) => Date.parse(iso);

describe('claiming', () => {
  it('hands over a token, the branch, the expiry and fence 1, recording the worktree', async () => {
    const alice = await serve('alice');
    await ok(alice, 'create_issue', { title: 'Fix the login form' });
    const claim = await ok(alice, 'next_issue');
    expect(claim.issue.key).toBe('BAT-1');
    expect(claim.lease.claimToken).toMatch(/^bt_[A-Za-z0-9_-]{40,}$/);
    expect(claim.lease.branch).toBe('baton/bat-1-fix-the-login-form');
    expect(claim.lease.fence).toBe(1);
    expect(claim.lease.worktree).toBe(repo.main);
    expect(claim.lease.agent).toBe('alice');
    expect(claim.lease.lastRenewedAt).toBe(claim.lease.claimedAt);
    expect(ms(claim.lease.expiresAt) - ms(claim.lease.claimedAt)).toBe(60_000);
    expect(claim.resumed).toBe(false);
  });

  it('records the worktree of the server that claims', async () => {
    const bob = await serve('bob', { cwd: repo.worktrees[0] });
    await ok(bob, 'create_issue', { title: 'One' });
    const claim = await ok(bob, 'next_issue');
    expect(claim.lease.worktree).toBe(repo.worktrees[0]);
    const claims = await ok(bob, 'list_claims');
    expect(claims.claims[0]).toMatchObject({ key: 'BAT-1', agent: 'bob', worktree: repo.worktrees[0] });
  });
});

describe('renewing', () => {
  it('resets the expiry to now + lease length on heartbeat and moves lastRenewedAt', async () => {
    const alice = await serve('alice');
    await ok(alice, 'create_issue', { title: 'One' });
    const claim = await ok(alice, 'next_issue');
    await sleep(1_100);
    const beat = await ok(alice, 'heartbeat', { key: 'BAT-1', claimToken: claim.lease.claimToken });
    expect(ms(beat.lease.lastRenewedAt)).toBeGreaterThan(ms(claim.lease.lastRenewedAt));
    expect(ms(beat.lease.expiresAt) - ms(beat.lease.lastRenewedAt)).toBe(60_000);
    expect(beat.lease.claimedAt).toBe(claim.lease.claimedAt);
    const status = await ok(alice, 'check_claim', { key: 'BAT-1' });
    expect(status).toMatchObject({ held: true, youHold: true, lastRenewedAt: beat.lease.lastRenewedAt });
  });

  it('does not renew on comments or edits', async () => {
    const alice = await serve('alice');
    await ok(alice, 'create_issue', { title: 'One' });
    const claim = await ok(alice, 'next_issue');
    await sleep(50);
    await ok(alice, 'comment', { key: 'BAT-1', text: 'working on it' });
    await ok(alice, 'update_issue', { key: 'BAT-1', body: 'more detail', priority: 1 });
    const status = await ok(alice, 'check_claim', { key: 'BAT-1' });
    expect(status.lastRenewedAt).toBe(claim.lease.lastRenewedAt);
    expect(status.expiresAt).toBe(claim.lease.expiresAt);
  });

  it('renews on checkpoint and records the git state of the worktree', async () => {
    const bob = await serve('bob', { cwd: repo.worktrees[0] });
    await ok(bob, 'create_issue', { title: 'One' });
    const claim = await ok(bob, 'next_issue');
    repo.write('notes.txt', 'draft\n', repo.worktrees[0]);
    await sleep(20);
    const saved = await ok(bob, 'checkpoint', { key: 'BAT-1', claimToken: claim.lease.claimToken, note: 'parser done', state: { step: 2 } });
    expect(ms(saved.lease.expiresAt)).toBeGreaterThan(ms(claim.lease.expiresAt));
    expect(saved.checkpoint).toMatchObject({
      note: 'parser done',
      state: { step: 2 },
      agent: 'bob',
      git: { head: repo.git(['rev-parse', 'HEAD'], repo.worktrees[0]), branch: 'wt-b', dirty: ['notes.txt'] },
    });
  });

  it("records its own worktree's git state when another server, in another worktree, writes for it", async () => {
    const alice = await serve('alice');
    // alice's first write makes her server the one writing for the others.
    await ok(alice, 'create_issue', { title: 'One' });
    // Her worktree differs from bob's, so whose git state was read shows.
    repo.write('scratch.txt', 'alice\n');
    const bob = await serve('bob', { cwd: repo.worktrees[0] });
    const claim = await ok(bob, 'next_issue');
    repo.write('notes.txt', 'draft\n', repo.worktrees[0]);
    await sleep(20);
    const saved = await ok(bob, 'checkpoint', { key: 'BAT-1', claimToken: claim.lease.claimToken, note: 'parser done' });
    expect(saved.checkpoint.git).toEqual({ head: repo.git(['rev-parse', 'HEAD'], repo.worktrees[0]), branch: 'wt-b', dirty: ['notes.txt'], changed: [] });
  });
});

describe('expiry and reclaim', () => {
  it('sweeps an expired lease without any claim, recording it as reclaimed', async () => {
    const alice = await serve('alice', { lease: 1, sweepMs: 100 });
    await ok(alice, 'create_issue', { title: 'One' });
    await ok(alice, 'next_issue');
    await waitFor(async () => (await ok(alice, 'list_claims')).claims.length === 0, 5_000, 'the lease to expire');
    await waitFor(
      async () => (await ok(alice, 'activity', { key: 'BAT-1' })).events.some((e: { type: string }) => e.type === 'reclaimed'),
      5_000,
      'the sweep to record the reclaim',
    );
    const issue = await ok(alice, 'get_issue', { key: 'BAT-1' });
    expect(issue.lease).toBeNull();
    expect(issue.issue.status).toBe('doing');
  });

  it('gives the next claimer the checkpoint with resumed: true, a new fence and one more reclaim', async () => {
    const alice = await serve('alice', { lease: 1 });
    const bob = await serve('bob', { cwd: repo.worktrees[0], lease: 1 });
    await ok(alice, 'create_issue', { title: 'One' });
    const first = await ok(alice, 'next_issue');
    await ok(alice, 'checkpoint', { key: 'BAT-1', claimToken: first.lease.claimToken, note: 'half way', state: { done: ['a'] } });
    await sleep(1_100);
    const second = await ok(bob, 'next_issue');
    expect(second.issue.key).toBe('BAT-1');
    expect(second.resumed).toBe(true);
    expect(second.checkpoint).toMatchObject({ note: 'half way', state: { done: ['a'] }, agent: 'alice' });
    expect(second.lease.fence).toBe(2);
    expect(second.lease.worktree).toBe(repo.worktrees[0]);
    expect(second.issue.reclaimCount).toBe(1);
    // No sweep ran (60 s): the claim itself recorded the reclaim first.
    const events = (await ok(bob, 'activity', { key: 'BAT-1' })).events.map((e: { type: string }) => e.type);
    expect(events.indexOf('reclaimed')).toBeGreaterThan(events.indexOf('claimed'));
    expect(events.filter((t: string) => t === 'reclaimed')).toHaveLength(1);
  });

  it('refuses every late write of the superseded holder and applies none of it', async () => {
    const alice = await serve('alice', { lease: 1 });
    const bob = await serve('bob', { cwd: repo.worktrees[0], lease: 30 });
    await ok(alice, 'create_issue', { title: 'One' });
    const stale = (await ok(alice, 'next_issue')).lease.claimToken;
    await sleep(1_100);
    await ok(bob, 'next_issue');
    const before = await ok(bob, 'get_issue', { key: 'BAT-1' });
    const args = { key: 'BAT-1', claimToken: stale };
    expect((await refused(alice, 'heartbeat', args, 'CLAIM_LOST')).reason).toBe('reclaimed');
    await refused(alice, 'checkpoint', { ...args, note: 'late note' }, 'CLAIM_LOST');
    await refused(alice, 'release', args, 'CLAIM_LOST');
    await refused(alice, 'submit_for_review', { ...args, summary: 'late' }, 'CLAIM_LOST');
    await refused(alice, 'done', { ...args, summary: 'late' }, 'CLAIM_LOST');
    const after = await ok(bob, 'get_issue', { key: 'BAT-1' });
    expect(after.issue.status).toBe('doing');
    expect(after.checkpoint).toEqual(before.checkpoint);
    expect(after.lease.agent).toBe('bob');
    expect(after.lease.expiresAt).toBe(before.lease.expiresAt);
  });

  it('treats a lease past its expiry as dead before any sweep', async () => {
    const alice = await serve('alice', { lease: 1 });
    await ok(alice, 'create_issue', { title: 'One' });
    const claim = await ok(alice, 'next_issue');
    await sleep(1_100);
    expect(await ok(alice, 'check_claim', { key: 'BAT-1' })).toMatchObject({ held: false, youHold: false, holder: null });
    const lost = await refused(alice, 'heartbeat', { key: 'BAT-1', claimToken: claim.lease.claimToken }, 'CLAIM_LOST');
    expect(lost.reason).toBe('expired');
  });
});

describe('release', () => {
  it('leaves the issue doing and claimable, with the checkpoint for the next claimer', async () => {
    const alice = await serve('alice');
    const bob = await serve('bob', { cwd: repo.worktrees[0] });
    await ok(alice, 'create_issue', { title: 'One' });
    const claim = await ok(alice, 'next_issue');
    await ok(alice, 'checkpoint', { key: 'BAT-1', claimToken: claim.lease.claimToken, note: 'tests written' });
    const released = await ok(alice, 'release', { key: 'BAT-1', claimToken: claim.lease.claimToken, note: 'out of time' });
    expect(released.issue.status).toBe('doing');
    expect((await ok(bob, 'list_claims')).claims).toEqual([]);
    const next = await ok(bob, 'next_issue');
    expect(next).toMatchObject({ resumed: true, checkpoint: { note: 'tests written' }, issue: { key: 'BAT-1', reclaimCount: 0 } });
    expect(next.lease.fence).toBe(2);
    await refused(alice, 'heartbeat', { key: 'BAT-1', claimToken: claim.lease.claimToken }, 'CLAIM_LOST');
  });
});

describe('restart', () => {
  it('lets a new session of the same agent take the lease over with the old token', async () => {
    const first = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'alice', BATON_LEASE_SECONDS: '60' } });
    await ok(first.client, 'create_issue', { title: 'One' });
    const claim = await ok(first.client, 'next_issue');
    const old = claim.lease.claimToken;
    await ok(first.client, 'checkpoint', { key: 'BAT-1', claimToken: old, note: 'before the restart' });
    await first.close();
    await first.exited();

    const alice = await serve('alice');
    // The clean exit kept the lease; this session does not hold it.
    const status = await ok(alice, 'check_claim', { key: 'BAT-1', claimToken: old });
    expect(status).toMatchObject({ held: true, youHold: false, holder: { agent: 'alice', session: 'other_session' } });
    const mismatch = await refused(alice, 'done', { key: 'BAT-1', claimToken: old }, 'CLAIM_MISMATCH');
    expect(mismatch.holder).toMatchObject({ agent: 'alice' });

    await sleep(20);
    const taken = await ok(alice, 'claim_issue', { key: 'BAT-1', claimToken: old });
    expect(taken.lease.claimToken).toMatch(/^bt_/);
    expect(taken.lease.claimToken).not.toBe(old);
    expect(taken.lease.claimedAt).toBe(claim.lease.claimedAt);
    expect(taken.lease.fence).toBe(claim.lease.fence);
    expect(taken.lease.branch).toBe(claim.lease.branch);
    expect(ms(taken.lease.lastRenewedAt)).toBeGreaterThan(ms(claim.lease.claimedAt));
    expect(taken.checkpoint).toMatchObject({ note: 'before the restart' });
    expect(await ok(alice, 'check_claim', { key: 'BAT-1' })).toMatchObject({ youHold: true, holder: { session: 'this' } });

    expect((await refused(alice, 'heartbeat', { key: 'BAT-1', claimToken: old }, 'CLAIM_LOST')).reason).toBe('superseded');
    await ok(alice, 'heartbeat', { key: 'BAT-1', claimToken: taken.lease.claimToken });
    expect((await ok(alice, 'done', { key: 'BAT-1', claimToken: taken.lease.claimToken })).issue.status).toBe('done');
  });

  it('refuses the token to another agent with FORBIDDEN and changes nothing', async () => {
    const alice = await serve('alice');
    const bob = await serve('bob', { cwd: repo.worktrees[0] });
    await ok(alice, 'create_issue', { title: 'One' });
    const claim = await ok(alice, 'next_issue');
    const args = { key: 'BAT-1', claimToken: claim.lease.claimToken };
    await refused(bob, 'claim_issue', args, 'FORBIDDEN');
    await refused(bob, 'heartbeat', args, 'FORBIDDEN');
    await refused(bob, 'done', args, 'FORBIDDEN');
    const status = await ok(alice, 'check_claim', args);
    expect(status).toMatchObject({ youHold: true, lastRenewedAt: claim.lease.lastRenewedAt });
    expect((await ok(alice, 'get_issue', { key: 'BAT-1' })).issue.status).toBe('doing');
  });

  it('answers a repeated claim_issue of the holding session with the same lease', async () => {
    const alice = await serve('alice');
    await ok(alice, 'create_issue', { title: 'One' });
    const claim = await ok(alice, 'claim_issue', { key: 'BAT-1' });
    const again = await ok(alice, 'claim_issue', { key: 'bat-1' });
    expect(again.lease).toMatchObject({ claimToken: claim.lease.claimToken, fence: 1, claimedAt: claim.lease.claimedAt });
    const text = (await call(alice, 'claim_issue', { key: 'BAT-1' })).text;
    expect(text).toContain(claim.lease.claimToken);
  });
});
