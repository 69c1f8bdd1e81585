import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_KEPT_MS } from '../../shared/baton.js';
import type { Result } from '../../shared/result.js';
import { harness, MINUTE, refusal, value } from '../helpers/core.js';

const LEASE = 30 * MINUTE;

async function oneIssue(title = 'Fix the parser') {
  const h = await harness();
  const admin = h.session('admin');
  const { issue } = value(await admin.createIssue({ title }));
  return { h, key: issue.key };
}

/** A store with `count` plain issues, BAT-1 upward, and its admin session. */
async function issues(count: number) {
  const h = await harness();
  const admin = h.session('admin');
  for (let i = 0; i < count; i++) value(await admin.createIssue({ title: `task ${i}` }));
  return { h, admin };
}

describe('claiming', () => {
  it('lists live claims newest first, whatever their expiry', async () => {
    const { h, admin } = await issues(3);
    const alice = h.session('alice');
    const first = value(await alice.claimIssue({ key: 'BAT-1' }));
    h.clock.advance(MINUTE);
    value(await h.session('bob').claimIssue({ key: 'BAT-2' }));
    h.clock.advance(MINUTE);
    value(await h.session('carol').claimIssue({ key: 'BAT-3' }));
    // Renewed last, the first claim now expires last: the order stays by claim time.
    value(await alice.heartbeat({ key: 'BAT-1', claimToken: first.lease.claimToken! }));
    expect(value(await admin.listClaims()).claims.map((c) => c.key)).toEqual(['BAT-3', 'BAT-2', 'BAT-1']);
  });

  it('hands out a token of at least 128 random bits, the branch, the lease times and fence 1', async () => {
    const { h, key } = await oneIssue('Fix the parser: edge cases!');
    const t0 = h.clock.now();
    const claimed = value(await h.session('alice').claimIssue({ key }));
    expect(claimed.lease.claimToken!.length).toBeGreaterThanOrEqual(32);
    expect(claimed.lease.branch).toBe('baton/bat-1-fix-the-parser-edge-cases');
    expect(claimed.lease.claimedAt).toBe(new Date(t0).toISOString());
    expect(claimed.lease.lastRenewedAt).toBe(claimed.lease.claimedAt);
    expect(claimed.lease.expiresAt).toBe(new Date(t0 + LEASE).toISOString());
    expect(claimed.lease.fence).toBe(1);
    expect(claimed.issue.status).toBe('doing');
    expect(claimed.resumed).toBe(false);
  });

  it('gives two claims of one issue two different tokens', async () => {
    const { h, key } = await oneIssue();
    const a = value(await h.session('alice').claimIssue({ key }));
    value(await h.session('alice').releaseAsOperator({ key }));
    const b = value(await h.session('bob').claimIssue({ key }));
    expect(a.lease.claimToken).not.toBe(b.lease.claimToken);
  });

  it('refuses a second session with ALREADY_CLAIMED naming the holder and expiry', async () => {
    const { h, key } = await oneIssue();
    const first = value(await h.session('alice').claimIssue({ key }));
    const error = refusal(await h.session('bob').claimIssue({ key }));
    expect(error.code).toBe('ALREADY_CLAIMED');
    expect(error.holder).toEqual({ agent: 'alice', session: 'other_session' });
    expect(error.expiresAt).toBe(first.lease.expiresAt);
  });

  it('gives the holding session its own lease back, token included, when it claims again', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const first = value(await alice.claimIssue({ key }));
    h.clock.advance(MINUTE);
    const again = value(await alice.claimIssue({ key }));
    expect(again.lease.claimToken).toBe(first.lease.claimToken);
    expect(again.lease.fence).toBe(1);
  });

  it('grows the fence by one at every new claim of the issue', async () => {
    const { h, key } = await oneIssue();
    const fences: number[] = [];
    for (const agent of ['a', 'b', 'c']) {
      const s = h.session(agent);
      const c = value(await s.claimIssue({ key }));
      fences.push(c.lease.fence);
      value(await s.release({ key, claimToken: c.lease.claimToken! }));
    }
    expect(fences).toEqual([1, 2, 3]);
  });

  it('gives the fence of every live lease by key, and none of a lease that ended or expired', async () => {
    const { h, admin } = await issues(3);
    for (const agent of ['a', 'b']) {
      const s = h.session(agent);
      const claimed = value(await s.claimIssue({ key: 'BAT-1' }));
      value(await s.release({ key: 'BAT-1', claimToken: claimed.lease.claimToken! }));
    }
    value(await h.session('c').claimIssue({ key: 'BAT-1' }));
    value(await h.session('d').claimIssue({ key: 'BAT-2' }));
    expect(value(await admin.liveFences())).toEqual({ 'BAT-1': 3, 'BAT-2': 1 });
    h.clock.advance(LEASE + 1);
    expect(value(await admin.liveFences())).toEqual({});
  });
});

describe('renewal', () => {
  it('resets the lease to now plus the lease length on heartbeat, never adding to what was left', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    h.clock.advance(10 * MINUTE);
    const { lease } = value(await alice.heartbeat({ key, claimToken: c.lease.claimToken! }));
    expect(lease.expiresAt).toBe(new Date(h.clock.now() + LEASE).toISOString());
    expect(lease.lastRenewedAt).toBe(new Date(h.clock.now()).toISOString());
    value(await alice.heartbeat({ key, claimToken: c.lease.claimToken! }));
    const status = value(await alice.checkClaim({ key }));
    expect(status.expiresAt).toBe(new Date(h.clock.now() + LEASE).toISOString());
  });

  it('resets the lease on checkpoint', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    h.clock.advance(20 * MINUTE);
    const { lease } = value(await alice.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'half way' }));
    expect(lease.expiresAt).toBe(new Date(h.clock.now() + LEASE).toISOString());
  });

  it('does not renew on comments, field edits or status reads', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    h.clock.advance(10 * MINUTE);
    value(await alice.comment({ key, text: 'working on it' }));
    value(await alice.updateIssue({ key, title: 'Fix the parser, properly', priority: 1 }));
    value(await alice.checkClaim({ key }));
    expect(value(await alice.checkClaim({ key })).expiresAt).toBe(c.lease.expiresAt);
  });
});

describe('expiry and reclaim', () => {
  it('treats a lease past its expiry as dead at once, before any sweep', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    h.clock.advance(LEASE);
    expect(value(await alice.checkClaim({ key })).held).toBe(false);
    const error = refusal(await alice.heartbeat({ key, claimToken: c.lease.claimToken! }));
    expect(error.code).toBe('CLAIM_LOST');
    expect(error.reason).toBe('expired');
  });

  it('records reclaimed before the new claim when a claim takes over an expired lease', async () => {
    const { h, key } = await oneIssue();
    value(await h.session('alice').claimIssue({ key }));
    h.clock.advance(LEASE + 1);
    const bob = h.session('bob');
    const c = value(await bob.claimIssue({ key }));
    expect(c.issue.reclaimCount).toBe(1);
    const { events } = value(await bob.activity({ key }));
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['claimed', 'reclaimed']);
  });

  it('sweeps expired leases, at most the given number per call, recording each as reclaimed', async () => {
    const { h, admin } = await issues(5);
    value(await h.session('alice').nextBatch({ max: 5 }));
    h.clock.advance(LEASE);
    expect(value(await admin.sweep(3)).reclaimed).toHaveLength(3);
    expect(value(await admin.sweep(3)).reclaimed).toHaveLength(2);
    expect(value(await admin.sweep(3)).reclaimed).toHaveLength(0);
    expect(value(await admin.listClaims()).claims).toHaveLength(0);
    const { events } = value(await admin.activity({}));
    expect(events.filter((e) => e.type === 'reclaimed')).toHaveLength(5);
  });

  it('refuses a late write of a reclaimed holder and applies nothing of it', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    h.clock.advance(LEASE);
    value(await h.session('sweeper').sweep());
    const bob = h.session('bob');
    value(await bob.claimIssue({ key }));
    const lateWrites: Promise<Result<unknown>>[] = [
      alice.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'late' }),
      alice.done({ key, claimToken: c.lease.claimToken!, summary: 'late' }),
      alice.release({ key, claimToken: c.lease.claimToken! }),
      alice.submitForReview({ key, claimToken: c.lease.claimToken!, summary: 'late' }),
      alice.heartbeat({ key, claimToken: c.lease.claimToken! }),
    ];
    for (const late of lateWrites) {
      const error = refusal(await late);
      expect(error.code).toBe('CLAIM_LOST');
      expect(error.reason).toBe('reclaimed');
      expect(error.holder).toEqual({ agent: 'bob', session: 'other_session' });
    }
    const detail = value(await bob.getIssue({ key }));
    expect(detail.checkpoint).toBeNull();
    expect(detail.issue.status).toBe('doing');
    expect(detail.lease?.agent).toBe('bob');
  });
});

describe('checkpoints', () => {
  it('survives release and hands the next claimer the checkpoint with resumed true', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    value(await alice.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'parser done', state: { step: 2 } }));
    value(await alice.release({ key, claimToken: c.lease.claimToken! }));
    const next = value(await h.session('bob').claimIssue({ key }));
    expect(next.resumed).toBe(true);
    expect(next.checkpoint).toMatchObject({ note: 'parser done', state: { step: 2 }, agent: 'alice' });
  });

  it('survives reclaim, counting the reclaim', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    value(await alice.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'tests written' }));
    h.clock.advance(LEASE);
    value(await h.session('sweeper').sweep());
    const next = value(await h.session('bob').claimIssue({ key }));
    expect(next.resumed).toBe(true);
    expect(next.checkpoint?.note).toBe('tests written');
    expect(next.issue.reclaimCount).toBe(1);
  });

  it('records git head, branch and changed paths when the session runs in a worktree', async () => {
    const h = await harness();
    const git = { head: 'a'.repeat(40), branch: 'baton/bat-1-x', dirty: ['src/a.ts'] };
    const alice = h.session('alice', { worktree: '/repo/wt', git });
    const { issue } = value(await alice.createIssue({ title: 'x' }));
    const c = value(await alice.claimIssue({ key: issue.key }));
    const { checkpoint } = value(await alice.checkpoint({ key: issue.key, claimToken: c.lease.claimToken!, note: 'n' }));
    expect(checkpoint.git).toEqual(git);
    expect(c.lease.worktree).toBe('/repo/wt');
  });

  it('records git null outside a worktree', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    expect(value(await alice.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'n' })).checkpoint.git).toBeNull();
  });

  it('refuses a state nested deeper than any serialiser can walk as invalid, storing nothing', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    let state: Record<string, unknown> = { done: true };
    for (let i = 0; i < 200_000; i++) state = { d: state };
    const error = refusal(await alice.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'deep', state }));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', issues: [{ path: 'state', message: expect.stringContaining('levels deep') }] });
    expect(value(await alice.getIssue({ key })).checkpoint).toBeNull();
  });
});

describe('restart and takeover', () => {
  it('gives a new session of the same agent the lease back with a fresh token, keeping fence, claimedAt, branch and checkpoint', async () => {
    const { h, key } = await oneIssue();
    const before = h.session('alice', { worktree: '/wt/a', renewer: 'vscode:1' });
    const c = value(await before.claimIssue({ key }));
    value(await before.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'half' }));
    h.clock.advance(5 * MINUTE);
    const after = h.session('alice', { worktree: '/wt/b', renewer: 'watchdog:w' });
    const taken = value(await after.claimIssue({ key, claimToken: c.lease.claimToken! }));
    expect(taken.lease.claimToken).not.toBe(c.lease.claimToken);
    expect(taken.lease).toMatchObject({ fence: c.lease.fence, claimedAt: c.lease.claimedAt, branch: c.lease.branch, worktree: '/wt/b', renewer: 'watchdog:w' });
    expect(taken.lease.lastRenewedAt).toBe(new Date(h.clock.now()).toISOString());
    expect(taken.lease.expiresAt).toBe(new Date(h.clock.now() + LEASE).toISOString());
    expect(taken.checkpoint?.note).toBe('half');
    const old = refusal(await before.heartbeat({ key, claimToken: c.lease.claimToken! }));
    expect(old).toMatchObject({ code: 'CLAIM_LOST', reason: 'superseded' });
    value(await after.heartbeat({ key, claimToken: taken.lease.claimToken! }));
  });

  it('tells a restarted session it resumes when its earlier session checkpointed after claiming', async () => {
    const { h, key } = await oneIssue();
    const before = h.session('alice');
    const c = value(await before.claimIssue({ key }));
    expect(c.resumed).toBe(false);
    value(await before.checkpoint({ key, claimToken: c.lease.claimToken!, note: 'half' }));
    const after = h.session('alice');
    const taken = value(await after.claimIssue({ key, claimToken: c.lease.claimToken! }));
    expect(taken).toMatchObject({ resumed: true, checkpoint: { note: 'half' } });
    expect(value(await after.claimIssue({ key })).resumed).toBe(true);
  });

  it('refuses another agent presenting the token with FORBIDDEN', async () => {
    const { h, key } = await oneIssue();
    const c = value(await h.session('alice').claimIssue({ key }));
    expect(refusal(await h.session('mallory').claimIssue({ key, claimToken: c.lease.claimToken! })).code).toBe('FORBIDDEN');
    expect(refusal(await h.session('mallory').heartbeat({ key, claimToken: c.lease.claimToken! })).code).toBe('FORBIDDEN');
  });

  it('answers CLAIM_MISMATCH to a write with the live token from another session of the same agent', async () => {
    const { h, key } = await oneIssue();
    const c = value(await h.session('alice').claimIssue({ key }));
    const error = refusal(await h.session('alice').checkpoint({ key, claimToken: c.lease.claimToken!, note: 'x' }));
    expect(error.code).toBe('CLAIM_MISMATCH');
    expect(error.holder).toEqual({ agent: 'alice', session: 'other_session' });
  });

  it('answers CLAIM_LOST with reason never issued to a token it never gave out', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    value(await alice.claimIssue({ key }));
    expect(refusal(await alice.heartbeat({ key, claimToken: 'not-a-token' }))).toMatchObject({ code: 'CLAIM_LOST', reason: 'never issued' });
    expect(refusal(await alice.claimIssue({ key, claimToken: 'x' }))).toMatchObject({ code: 'CLAIM_LOST', reason: 'never issued' });
  });

  it('takes any non-empty string as a token: blank, NUL or long ones are lost, not invalid', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    value(await alice.claimIssue({ key }));
    for (const claimToken of [' ', 'a\0b', 'x'.repeat(10_000)]) {
      expect(refusal(await alice.heartbeat({ key, claimToken })), JSON.stringify(claimToken.slice(0, 8))).toMatchObject({ code: 'CLAIM_LOST', reason: 'never issued' });
    }
    expect(refusal(await alice.heartbeat({ key, claimToken: '' })).code).toBe('INVALID_INPUT');
  });

  it('keeps leases when a session ends cleanly', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    value(await alice.registerSession({ pid: 1, host: 'h' }));
    value(await alice.claimIssue({ key }));
    value(await alice.endSession());
    expect(value(await h.session('x').checkClaim({ key })).held).toBe(true);
  });

  it('lists the sessions not ended and those whose lease lives on, leaving out the rest', async () => {
    const { h, admin } = await issues(1);
    const start = async (agent: string) => {
      const s = h.session(agent);
      value(await s.registerSession({ pid: 1, host: 'h' }));
      return s;
    };
    await start('running');
    const ended = await start('ended');
    const holding = await start('holding');
    value(await holding.claimIssue({ key: 'BAT-1' }));
    value(await ended.endSession());
    value(await holding.endSession());
    const agents = async () => value(await admin.listSessions()).sessions.map((s) => s.agent).sort();
    expect(await agents()).toEqual(['holding', 'running']);
    h.clock.advance(LEASE + 1);
    expect(await agents()).toEqual(['running']);
  });

  it('clears, when a server starts, sessions ended a day ago and those found dead, unless they hold a live lease', async () => {
    const { h } = await issues(2);
    const start = async (agent: string, gone: string[] = []) => {
      const s = h.session(agent);
      value(await s.registerSession({ pid: 1, host: 'h', gone }));
      return s;
    };
    const stored = () => h.store.read(async (tx) => (await tx.all<{ agent: string }>('SELECT agent FROM sessions ORDER BY agent')).map((r) => r.agent));
    value(await (await start('ended-long-ago')).endSession());
    const holding = await start('holding');
    value(await holding.endSession());
    h.clock.advance(HISTORY_KEPT_MS - MINUTE);
    value(await (await start('ended-lately')).endSession());
    const dead = await start('dead');
    const deadHolding = await start('dead-holding');
    h.clock.advance(2 * MINUTE);
    value(await holding.claimIssue({ key: 'BAT-1' }));
    value(await deadHolding.claimIssue({ key: 'BAT-2' }));
    expect(await stored()).toEqual(['dead', 'dead-holding', 'ended-lately', 'ended-long-ago', 'holding']);

    const starting = h.session('starting');
    await start('starting', [dead.caller.session, deadHolding.caller.session, starting.caller.session, 'unknown']);
    expect(await stored()).toEqual(['dead-holding', 'ended-lately', 'holding', 'starting']);
  });
});

describe('ending a lease', () => {
  it('leaves a released issue doing and claimable, and the token lost as released', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    const { issue } = value(await alice.release({ key, claimToken: c.lease.claimToken!, note: 'stuck' }));
    expect(issue.status).toBe('doing');
    expect(refusal(await alice.heartbeat({ key, claimToken: c.lease.claimToken! }))).toMatchObject({ code: 'CLAIM_LOST', reason: 'released' });
    value(await h.session('bob').claimIssue({ key }));
  });

  it('finishes with done, after which the token is lost as finished', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    expect(value(await alice.done({ key, claimToken: c.lease.claimToken!, summary: 'merged' })).issue.status).toBe('done');
    expect(refusal(await alice.done({ key, claimToken: c.lease.claimToken! }))).toMatchObject({ code: 'CLAIM_LOST', reason: 'finished' });
    expect(refusal(await h.session('bob').claimIssue({ key }))).toMatchObject({ code: 'NOT_READY', status: 'done' });
  });

  it('lets an operator release a lease without its token, which the holder then loses', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    expect(value(await h.session('person').releaseAsOperator({ key })).released).toBe(true);
    expect(refusal(await alice.heartbeat({ key, claimToken: c.lease.claimToken! }))).toMatchObject({ code: 'CLAIM_LOST', reason: 'released' });
  });

  it('lets an operator release only the claim of the fence they confirmed, leaving a claim taken since', async () => {
    const { h, key } = await oneIssue();
    const a = h.session('alice');
    const alice = value(await a.claimIssue({ key }));
    value(await a.release({ key, claimToken: alice.lease.claimToken! }));
    const bob = h.session('bob');
    const b = value(await bob.claimIssue({ key }));
    expect(b.lease.fence).not.toBe(alice.lease.fence);
    expect(value(await h.session('person').releaseAsOperator({ key, fence: alice.lease.fence })).released).toBe(false);
    expect(value(await bob.heartbeat({ key, claimToken: b.lease.claimToken! })).lease.fence).toBe(b.lease.fence);
    expect(value(await h.session('person').releaseAsOperator({ key, fence: b.lease.fence })).released).toBe(true);
    expect(refusal(await bob.heartbeat({ key, claimToken: b.lease.claimToken! }))).toMatchObject({ code: 'CLAIM_LOST', reason: 'released' });
  });

  it('refuses a status change by another session while the issue is held', async () => {
    const { h, key } = await oneIssue();
    value(await h.session('alice').claimIssue({ key }));
    expect(refusal(await h.session('bob').updateIssue({ key, status: 'cancelled' })).code).toBe('ALREADY_CLAIMED');
  });
});

describe('renewers', () => {
  it('renews only the live leases of the sessions named, with the renewer named', async () => {
    const { h, admin } = await issues(3);
    const mine = h.session('a', { session: 'live-1', renewer: 'vscode:w1' });
    const other = h.session('b', { session: 'live-2', renewer: 'vscode:w2' });
    value(await mine.claimIssue({ key: 'BAT-1' }));
    value(await other.claimIssue({ key: 'BAT-2' }));
    h.clock.advance(20 * MINUTE);
    const { leases } = value(await admin.renewLeases({ sessions: ['live-1', 'live-2'], renewer: 'vscode:w1' }));
    expect(leases.map((l) => l.key)).toEqual(['BAT-1']);
    expect(leases[0].claimToken).toBeUndefined();
    h.clock.advance(15 * MINUTE);
    const claims = value(await admin.listClaims()).claims.map((c) => c.key);
    expect(claims).toEqual(['BAT-1']);
  });
});

describe('request ids', () => {
  it('answers a repeated request id of the same session with the first answer, claiming nothing more', async () => {
    const { h, admin } = await issues(3);
    const alice = h.session('alice');
    const first = value(await alice.nextIssue({ requestId: 'r1' }));
    const again = value(await alice.nextIssue({ requestId: 'r1' }));
    expect(again?.issue.key).toBe(first?.issue.key);
    expect(again?.lease.claimToken).toBe(first?.lease.claimToken);
    expect(value(await admin.listClaims()).claims).toHaveLength(1);
  });

  it('moves the leases of a repeated request id to a new session of the same agent with fresh tokens', async () => {
    const { h, admin } = await issues(3);
    const first = value(await h.session('alice').nextBatch({ max: 2, requestId: 'batch-1' }));
    const second = value(await h.session('alice').nextBatch({ max: 2, requestId: 'batch-1' }));
    expect(second.items.map((i) => i.issue.key)).toEqual(first.items.map((i) => i.issue.key));
    expect(second.items[0].lease.claimToken).not.toBe(first.items[0].lease.claimToken);
    expect(value(await admin.listClaims()).claims).toHaveLength(2);
  });

  it('forgets a request id a day old once a server starts: a repeat then claims anew', async () => {
    const { h, admin } = await issues(3);
    const alice = h.session('alice');
    value(await alice.nextIssue({ requestId: 'old' }));
    h.clock.advance(HISTORY_KEPT_MS - MINUTE);
    const recent = value(await alice.nextIssue({ requestId: 'recent' }));
    h.clock.advance(2 * MINUTE);
    const remembered = () => h.store.read(async (tx) => (await tx.all<{ request_id: string }>('SELECT request_id FROM requests ORDER BY request_id')).map((r) => r.request_id));
    expect(await remembered()).toEqual(['old', 'recent']);
    // Remembered, the old id answers what it claimed then: a lease long expired, so nothing.
    expect(value(await alice.nextIssue({ requestId: 'old' }))).toBeNull();

    value(await h.session('starting').registerSession({ pid: 1, host: 'h' }));
    expect(await remembered()).toEqual(['recent']);
    expect(value(await alice.nextIssue({ requestId: 'recent' }))?.issue.key).toBe(recent?.issue.key);
    const anew = value(await alice.nextIssue({ requestId: 'old' }));
    expect(anew?.issue.key).not.toBe(recent?.issue.key);
    expect(value(await admin.listClaims()).claims.map((c) => c.key).sort()).toEqual([recent?.issue.key, anew?.issue.key].sort());
  });

  it('keeps request ids apart per agent', async () => {
    const { h, admin } = await issues(2);
    const a = value(await h.session('alice').nextIssue({ requestId: 'same' }));
    const b = value(await h.session('bob').nextIssue({ requestId: 'same' }));
    expect(a?.issue.key).not.toBe(b?.issue.key);
  });
});

describe('token secrecy', () => {
  it('keeps no plaintext token in the database, and shows none to anyone but the holder', async () => {
    const { h, key } = await oneIssue();
    const alice = h.session('alice');
    const c = value(await alice.claimIssue({ key }));
    const token = c.lease.claimToken!;
    const files = readdirSync(dirname(h.dbPath)).map((f) => join(dirname(h.dbPath), f));
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) if (statSync(file).isFile()) expect(readFileSync(file).includes(token)).toBe(false);
    const bob = h.session('bob');
    const answers = [await bob.getIssue({ key }), await bob.listClaims(), await bob.activity({}), await bob.checkClaim({ key }), await bob.listIssues({})];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(token);
  });
});
