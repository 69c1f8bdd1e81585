import { describe, expect, it } from 'vitest';
import { harness, MINUTE, refusal, value } from '../helpers/core.js';

/** The stuck rule on one database with a hand-moved clock (30-minute leases). */
describe('stuck issues', () => {
  it('an issue whose lease expires maxReclaims times in a row becomes stuck, is not dispatched, and reopen puts it back', async () => {
    const h = await harness({ maxReclaims: 2 });
    const ann = h.session('ann');
    const sweeper = h.session('sweeper');
    const key = value(await ann.createIssue({ title: 'hangs the test suite', priority: 0 })).issue.key;
    const other = value(await ann.createIssue({ title: 'fine', priority: 3 })).issue.key;
    for (let i = 0; i < 2; i++) {
      expect(value(await ann.claimIssue({ key })).issue.status).toBe('doing');
      h.clock.advance(31 * MINUTE);
      value(await sweeper.sweep());
    }
    const detail = value(await ann.getIssue({ key }));
    expect(detail.issue.status).toBe('stuck');
    expect(detail.activity.slice(0, 2).map((e) => e.type)).toEqual(['stuck', 'reclaimed']);
    expect(refusal(await ann.claimIssue({ key }))).toMatchObject({ code: 'STUCK', reclaims: 2 });
    // Dispatch passes it over for the lower-priority issue.
    expect(value(await ann.nextIssue({}))?.issue.key).toBe(other);
    const listed = value(await ann.listIssues({ status: 'stuck' })).issues;
    expect(listed).toEqual([expect.objectContaining({ key, attention: expect.stringContaining('expired 2 times in a row') })]);

    expect(value(await ann.reopen({ key })).issue.status).toBe('todo');
    expect(value(await ann.nextIssue({}))?.issue.key).toBe(key);
  });

  it('a checkpoint between expiries resets the streak', async () => {
    const h = await harness({ maxReclaims: 2 });
    const ann = h.session('ann');
    const key = value(await ann.createIssue({ title: 'slow but moving' })).issue.key;
    let claim = value(await ann.claimIssue({ key }));
    h.clock.advance(31 * MINUTE);
    claim = value(await ann.claimIssue({ key }));
    value(await ann.checkpoint({ key, claimToken: claim.lease.claimToken!, note: 'half way' }));
    h.clock.advance(31 * MINUTE);
    // The second expiry in all, but the first since the checkpoint: the claim goes through.
    expect(value(await ann.claimIssue({ key })).issue.status).toBe('doing');
  });

  it('a claim whose clearing of the expired lease would be the last allowed expiry is refused with STUCK and changes nothing; a batch goes on to the next issue', async () => {
    const h = await harness({ maxReclaims: 1 });
    const ann = h.session('ann');
    const key = value(await ann.createIssue({ title: 'first', priority: 0 })).issue.key;
    const next = value(await ann.createIssue({ title: 'second', priority: 1 })).issue.key;
    value(await ann.claimIssue({ key }));
    h.clock.advance(31 * MINUTE);
    expect(refusal(await ann.claimIssue({ key }))).toMatchObject({ code: 'STUCK', reclaims: 1 });
    expect(value(await ann.getIssue({ key })).issue.status).toBe('doing');
    const batch = value(await ann.nextBatch({ max: 2 }));
    expect(batch.items.map((i) => i.issue.key)).toEqual([next]);
    expect(value(await ann.getIssue({ key })).issue.status).toBe('stuck');
  });

  it('maxReclaims 0 means no limit', async () => {
    const h = await harness({ maxReclaims: 0 });
    const ann = h.session('ann');
    const key = value(await ann.createIssue({ title: 'forever' })).issue.key;
    for (let i = 0; i < 5; i++) {
      value(await ann.claimIssue({ key }));
      h.clock.advance(31 * MINUTE);
    }
    expect(value(await ann.claimIssue({ key })).issue.status).toBe('doing');
  });

  it('update_issue cannot set stuck', async () => {
    const h = await harness();
    const ann = h.session('ann');
    const key = value(await ann.createIssue({ title: 'x' })).issue.key;
    expect(refusal(await ann.updateIssue({ key, status: 'stuck' })).code).toBe('INVALID_INPUT');
  });
});
