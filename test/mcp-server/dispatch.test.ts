import { describe, expect, it } from 'vitest';
import { repoWithServers } from '../helpers/repoServers.js';
import { ok } from '../helpers/tools.js';

const scratch = repoWithServers(['wt-b']);
const serve = scratch.serve;

describe('dispatch order', () => {
  it('hands out issues by effective priority, then priority, then age, skipping blocked ones', async () => {
    const alice = await serve('alice');
    const create = async (title: string, priority: number, blockedBy?: string[]) =>
      (await ok(alice, 'create_issue', { title, priority, ...(blockedBy ? { blockedBy } : {}), labels: ['order'] })).issue.key as string;
    const a = await create('A', 3);
    const b = await create('B', 2);
    const c = await create('C blocks E', 4);
    const d = await create('D', 1);
    const e = await create('E', 0, [c]); // lends C effective priority 0
    const f = await create('F', 2);
    const g = await create('G blocks H', 3);
    const h = await create('H', 1, [g]); // lends G effective priority 1; D wins the tie on its own priority

    expect((await ok(alice, 'get_issue', { key: c })).issue.effectivePriority).toBe(0);
    const order: string[] = [];
    for (;;) {
      const next = await ok(alice, 'next_issue', { labels: ['order'] });
      if (next.issue === null) break;
      order.push(next.issue.key);
    }
    expect(order).toEqual([c, d, g, b, f, a]);
    expect(order).not.toContain(e);
    expect(order).not.toContain(h);
  });

  it('hands out a blocked issue once its blocker is done', async () => {
    const alice = await serve('alice-2');
    const blocker = (await ok(alice, 'create_issue', { title: 'first', labels: ['chain'] })).issue.key;
    const blocked = (await ok(alice, 'create_issue', { title: 'second', labels: ['chain'], blockedBy: [blocker], priority: 0 })).issue.key;
    const first = await ok(alice, 'next_issue', { labels: ['chain'] });
    expect(first.issue.key).toBe(blocker);
    expect((await ok(alice, 'next_issue', { labels: ['chain'] })).issue).toBeNull();
    await ok(alice, 'done', { key: blocker, claimToken: first.lease.claimToken });
    expect((await ok(alice, 'next_issue', { labels: ['chain'] })).issue.key).toBe(blocked);
  });
});

describe('next_batch', () => {
  it('claims up to max ready issues, none blocking another, each with its own token', async () => {
    const alice = await serve('batcher');
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) keys.push((await ok(alice, 'create_issue', { title: `batch ${i}`, labels: ['batch'] })).issue.key);
    await ok(alice, 'relate', { key: keys[0], type: 'blocks', other: keys[1] });
    const batch = await ok(alice, 'next_batch', { max: 10, labels: ['batch'] });
    const got = batch.items.map((item: { issue: { key: string } }) => item.issue.key);
    expect(got.sort()).toEqual([keys[0], keys[2], keys[3]].sort());
    const tokens = new Set(batch.items.map((item: { lease: { claimToken: string } }) => item.lease.claimToken));
    expect(tokens.size).toBe(3);
    for (const item of batch.items) {
      expect(item.issue.relations.blocks.filter((k: string) => got.includes(k))).toEqual([]);
      expect(item.issue.relations.blockedBy.filter((k: string) => got.includes(k))).toEqual([]);
    }
  });

  it('gives two servers asking at once disjoint batches that together take every ready issue', async () => {
    const one = await serve('left');
    const two = await serve('right', {}, scratch.repo.worktrees[0]);
    const created: string[] = [];
    for (let i = 0; i < 10; i++) created.push((await ok(one, 'create_issue', { title: `race ${i}`, labels: ['race'] })).issue.key);
    const [a, b] = await Promise.all([ok(one, 'next_batch', { max: 6, labels: ['race'] }), ok(two, 'next_batch', { max: 6, labels: ['race'] })]);
    const keysA = a.items.map((i: { issue: { key: string } }) => i.issue.key);
    const keysB = b.items.map((i: { issue: { key: string } }) => i.issue.key);
    expect(keysA.filter((k: string) => keysB.includes(k))).toEqual([]);
    expect([...keysA, ...keysB].sort()).toEqual([...created].sort());
    expect(Math.max(keysA.length, keysB.length)).toBe(6);
  });

  it('returns the first answer for a repeated requestId instead of claiming more', async () => {
    const alice = await serve('retry');
    for (let i = 0; i < 3; i++) await ok(alice, 'create_issue', { title: `retry ${i}`, labels: ['retry'] });
    const first = await ok(alice, 'next_batch', { max: 2, labels: ['retry'], requestId: 'req-1' });
    const again = await ok(alice, 'next_batch', { max: 2, labels: ['retry'], requestId: 'req-1' });
    expect(again.items.map((i: { lease: unknown }) => i.lease)).toEqual(first.items.map((i: { lease: unknown }) => i.lease));
    const single = await ok(alice, 'next_issue', { labels: ['retry'], requestId: 'req-2' });
    expect((await ok(alice, 'next_issue', { labels: ['retry'], requestId: 'req-2' })).lease).toEqual(single.lease);
    expect((await ok(alice, 'next_issue', { labels: ['retry'] })).issue).toBeNull();
  });

  it('moves the leases of a repeated requestId to a new session of the same agent, with fresh tokens', async () => {
    const before = await serve('mover');
    await ok(before, 'create_issue', { title: 'move me', labels: ['move'] });
    const first = await ok(before, 'next_issue', { labels: ['move'], requestId: 'req-move' });
    const after = await serve('mover', {}, scratch.repo.worktrees[0]);
    const again = await ok(after, 'next_issue', { labels: ['move'], requestId: 'req-move' });
    expect(again.issue.key).toBe(first.issue.key);
    expect(again.lease.claimToken).not.toBe(first.lease.claimToken);
    expect(again.lease.worktree).toBe(scratch.repo.worktrees[0]);
    expect(await ok(after, 'check_claim', { key: first.issue.key })).toMatchObject({ youHold: true });
    expect(await ok(before, 'check_claim', { key: first.issue.key })).toMatchObject({ youHold: false });
  });
});
