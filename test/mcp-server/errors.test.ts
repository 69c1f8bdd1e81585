import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoWithServers } from '../helpers/repoServers.js';
import { call, ok, refused } from '../helpers/tools.js';

const scratch = repoWithServers(['wt-errors']);
const serve = scratch.serve;

/** Every event of the log: a refusal must not add one. */
async function eventCount(client: Awaited<ReturnType<typeof serve>>) {
  return (await ok(client, 'activity', { limit: 1000 })).events.length;
}

describe('every error code, each refusal changing nothing', () => {
  it('answers each protocol error with its code and details', async () => {
    const alice = await serve('alice');
    const bob = await serve('bob', {}, scratch.repo.worktrees[0]);
    const held = (await ok(alice, 'create_issue', { title: 'held by alice' })).issue.key;
    const blocker = (await ok(alice, 'create_issue', { title: 'blocker', priority: 4 })).issue.key;
    const blocked = (await ok(alice, 'create_issue', { title: 'blocked', blockedBy: [blocker], priority: 4 })).issue.key;
    const finished = (await ok(alice, 'create_issue', { title: 'finished', priority: 4 })).issue.key;
    const cancelled = (await ok(alice, 'create_issue', { title: 'cancelled', priority: 4 })).issue.key;
    const token = (await ok(alice, 'claim_issue', { key: held })).lease.claimToken;
    const done = await ok(alice, 'claim_issue', { key: finished });
    await ok(alice, 'done', { key: finished, claimToken: done.lease.claimToken });
    await ok(alice, 'update_issue', { key: cancelled, status: 'cancelled' });
    const before = await eventCount(alice);

    expect(await refused(bob, 'create_issue', { title: '' }, 'INVALID_INPUT')).toHaveProperty('issues');
    expect((await refused(bob, 'get_issue', { key: 'ZZZ-404' }, 'NOT_FOUND')).key).toBe('ZZZ-404');
    await refused(bob, 'claim_issue', { key: 'BAT-999' }, 'NOT_FOUND');
    const claimed = await refused(bob, 'claim_issue', { key: held }, 'ALREADY_CLAIMED');
    expect(claimed.holder).toMatchObject({ agent: 'alice' });
    expect(claimed.expiresAt).toEqual(expect.any(String));
    expect((await refused(bob, 'claim_issue', { key: blocked }, 'BLOCKED')).blockers).toEqual([blocker]);
    expect((await refused(bob, 'claim_issue', { key: finished }, 'NOT_READY')).status).toBe('done');
    expect((await refused(bob, 'claim_issue', { key: cancelled }, 'NOT_READY')).status).toBe('cancelled');
    expect((await refused(bob, 'heartbeat', { key: held, claimToken: 'not-a-token' }, 'CLAIM_LOST')).reason).toBe('never issued');
    expect((await refused(alice, 'heartbeat', { key: finished, claimToken: done.lease.claimToken }, 'CLAIM_LOST')).reason).toBe('finished');
    await refused(bob, 'done', { key: held, claimToken: token }, 'FORBIDDEN');
    await refused(bob, 'checkpoint', { key: held, claimToken: token, note: 'hijack' }, 'FORBIDDEN');
    await ok(alice, 'relate', { key: blocker, type: 'blocks', other: held });
    const before2 = await eventCount(alice);
    const cycle = await refused(bob, 'relate', { key: held, type: 'blocks', other: blocker }, 'CYCLE');
    expect(cycle.path).toEqual(expect.arrayContaining([held, blocker]));
    await refused(bob, 'relate', { key: blocked, type: 'blockedBy', other: blocked }, 'CYCLE');
    await refused(bob, 'create_issue', { title: 'x', blockedBy: ['BAT-999'] }, 'NOT_FOUND');

    expect(await eventCount(alice)).toBe(before2);
    // The relation, and the late heartbeat of the finished lease, recorded as refused (the
    // one refusal the log records; the issue itself is unchanged).
    expect(before2).toBe(before + 2);
    const refusedEvents = (await ok(alice, 'activity', { key: finished })).events.filter((e: { type: string }) => e.type === 'refused');
    expect(refusedEvents.map((e: { detail: string }) => e.detail)).toEqual([expect.stringMatching(/^late heartbeat with fence 1 refused \(finished\)/)]);
    const status = await ok(alice, 'check_claim', { key: held, claimToken: token });
    expect(status).toMatchObject({ youHold: true, fence: 1 });
    expect((await ok(alice, 'get_issue', { key: held })).checkpoint).toBeNull();
  });

  it('answers CLAIM_MISMATCH to a new session of the same agent presenting the live token', async () => {
    const first = await serve('carol');
    const key = (await ok(first, 'create_issue', { title: 'carol works' })).issue.key;
    const token = (await ok(first, 'claim_issue', { key })).lease.claimToken;
    const second = await serve('carol', {}, scratch.repo.worktrees[0]);
    const mismatch = await refused(second, 'heartbeat', { key, claimToken: token }, 'CLAIM_MISMATCH');
    expect(mismatch.holder).toMatchObject({ agent: 'carol' });
    expect(JSON.stringify(mismatch)).not.toContain(token);
    await ok(first, 'heartbeat', { key, claimToken: token });
  });

  it('answers STORE_UNAVAILABLE for a file that is not a Baton database, keeps it intact and keeps serving', async () => {
    const path = join(scratch.repo.dir, 'not-a-database.db');
    writeFileSync(path, 'these are my notes, not a database\n');
    const client = await serve('dora', { BATON_DB: path });
    for (const [name, args] of [
      ['list_issues', {}],
      ['create_issue', { title: 'lost?' }],
      ['next_issue', {}],
    ] as const) {
      const error = await refused(client, name, args, 'STORE_UNAVAILABLE');
      expect(error.path).toBe(path);
      expect(error.reason).toEqual(expect.any(String));
    }
    expect(readFileSync(path, 'utf8')).toBe('these are my notes, not a database\n');
    // Bad input is still judged first, and the server still answers.
    await refused(client, 'create_issue', { title: '' }, 'INVALID_INPUT');
    expect((await call(client, 'list_claims')).structured.error.code).toBe('STORE_UNAVAILABLE');
  });
});
