import { describe, expect, it } from 'vitest';
import { parsePushLines, type PushUpdate, pushRefusals, refusalText } from '../../shared/rules/push-guard.js';
import { harness, MINUTE, value } from '../helpers/core.js';

const LEASE = 30 * MINUTE;
const A = '/repo/wt-a';
const B = '/repo/wt-b';
const MAIN = '/repo/main';
const SHA = '1111111111111111111111111111111111111111';
const ZERO = '0000000000000000000000000000000000000000';

function push(branch: string, localSha = SHA): PushUpdate[] {
  return [{ localRef: `refs/heads/${branch}`, localSha, remoteRef: `refs/heads/${branch}`, remoteSha: ZERO }];
}

/** One issue claimed by alice in worktree A; its branch. */
async function claimedInA() {
  const h = await harness();
  value(await h.session('admin').createIssue({ title: 'Fix the parser' }));
  const alice = h.session('alice', { worktree: A });
  const claimed = value(await alice.claimIssue({ key: 'BAT-1' }));
  const refusals = (worktree: string | null, updates: PushUpdate[]) => h.store.read((tx) => pushRefusals(tx, worktree, updates));
  return { h, alice, claimed, branch: claimed.lease.branch, refusals };
}

describe('the push rule', () => {
  it("refuses another worktree's push of a live lease's branch, naming the holder, its worktree and since when", async () => {
    const { h, branch, refusals } = await claimedInA();
    const since = new Date(h.clock.now()).toISOString();
    const refused = await refusals(B, push(branch));
    expect(refused).toEqual([{ key: 'BAT-1', branch, reason: 'live', holder: { agent: 'alice', worktree: A, since } }]);
    const text = refusalText(refused);
    expect(text).toContain('BAT-1');
    expect(text).toContain('alice');
    expect(text).toContain(A);
    expect(text).toContain('git push --no-verify');
  });

  it("passes the live holder's own push, other branches, tags and deletions", async () => {
    const { branch, refusals } = await claimedInA();
    expect(await refusals(A, push(branch))).toEqual([]);
    expect(await refusals(B, push('feature/unrelated'))).toEqual([]);
    expect(await refusals(B, [{ localRef: 'refs/tags/v1', localSha: SHA, remoteRef: 'refs/tags/v1', remoteSha: ZERO }])).toEqual([]);
    expect(await refusals(B, push(branch, ZERO))).toEqual([]);
  });

  it('refuses the superseded worktree once another worktree resumed the lapsed issue, and passes the new holder', async () => {
    const { h, branch, refusals } = await claimedInA();
    h.clock.advance(LEASE + 1);
    // A lapsed lease with nobody after it blocks no one.
    expect(await refusals(A, push(branch))).toEqual([]);
    expect(await refusals(B, push(branch))).toEqual([]);
    const bob = h.session('bob', { worktree: B });
    const resumed = value(await bob.claimIssue({ key: 'BAT-1' }));
    expect(resumed.lease.branch).toBe(branch);
    expect(await refusals(A, push(branch))).toMatchObject([{ reason: 'live', holder: { agent: 'bob', worktree: B } }]);
    expect(await refusals(B, push(branch))).toEqual([]);
  });

  it('keeps refusing the superseded worktree after the new holder finished, and lets a person outside the history push', async () => {
    const { h, branch, refusals } = await claimedInA();
    h.clock.advance(LEASE + 1);
    const bob = h.session('bob', { worktree: B });
    const resumed = value(await bob.claimIssue({ key: 'BAT-1' }));
    value(await bob.done({ key: 'BAT-1', claimToken: resumed.lease.claimToken! }));
    expect(await refusals(A, push(branch))).toMatchObject([{ key: 'BAT-1', reason: 'finished', holder: { agent: 'bob', worktree: B } }]);
    expect(refusalText(await refusals(A, push(branch)))).toContain('finished by bob');
    expect(await refusals(B, push(branch))).toEqual([]);
    expect(await refusals(MAIN, push(branch))).toEqual([]);
  });

  it('follows a takeover with the token into another worktree', async () => {
    const { h, claimed, branch, refusals } = await claimedInA();
    const restarted = h.session('alice', { worktree: B });
    value(await restarted.claimIssue({ key: 'BAT-1', claimToken: claimed.lease.claimToken! }));
    expect(await refusals(A, push(branch))).toMatchObject([{ reason: 'live', holder: { agent: 'alice', worktree: B } }]);
    expect(await refusals(B, push(branch))).toEqual([]);
  });

  it('passes the holder that released its issue and anyone after a plain release', async () => {
    const { h, alice, claimed, branch, refusals } = await claimedInA();
    value(await alice.release({ key: 'BAT-1', claimToken: claimed.lease.claimToken! }));
    h.clock.advance(MINUTE);
    expect(await refusals(A, push(branch))).toEqual([]);
    expect(await refusals(B, push(branch))).toEqual([]);
  });

  it('reads the lines git gives a pre-push hook and skips anything else', () => {
    expect(parsePushLines(`refs/heads/x ${SHA} refs/heads/x ${ZERO}\n\ngarbage\n`)).toEqual(push('x'));
  });
});
