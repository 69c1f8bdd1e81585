import { describe, expect, it } from 'vitest';
import { harness, MINUTE, refusal, value } from '../helpers/core.js';

describe('readiness', () => {
  it('offers todo issues and unheld doing issues, not held, blocked, review, done or cancelled ones', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const keys: string[] = [];
    for (const title of ['todo', 'unheld doing', 'held', 'blocked', 'review', 'done', 'cancelled']) {
      keys.push(value(await admin.createIssue({ title })).issue.key);
    }
    const alice = h.session('alice');
    const unheld = value(await alice.claimIssue({ key: keys[1] }));
    value(await alice.release({ key: keys[1], claimToken: unheld.lease.claimToken! }));
    value(await h.session('bob').claimIssue({ key: keys[2] }));
    value(await admin.relate({ key: keys[3], type: 'blockedBy', other: keys[2] }));
    value(await admin.updateIssue({ key: keys[4], status: 'review' }));
    value(await admin.updateIssue({ key: keys[5], status: 'done' }));
    value(await admin.updateIssue({ key: keys[6], status: 'cancelled' }));
    const ready = value(await admin.readyQueue()).issues.map((i) => i.title);
    expect(ready.sort()).toEqual(['todo', 'unheld doing']);
    expect(value(await admin.listIssues({ ready: true })).issues.map((i) => i.title).sort()).toEqual(['todo', 'unheld doing']);
  });

  it('makes a blocked issue ready once every blocker is done or cancelled', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const a = value(await admin.createIssue({ title: 'a' })).issue.key;
    const b = value(await admin.createIssue({ title: 'b' })).issue.key;
    const c = value(await admin.createIssue({ title: 'c', blockedBy: [a, b] })).issue.key;
    expect(refusal(await h.session('x').claimIssue({ key: c }))).toMatchObject({ code: 'BLOCKED', blockers: [a, b] });
    value(await admin.updateIssue({ key: a, status: 'done' }));
    expect(refusal(await h.session('x').claimIssue({ key: c }))).toMatchObject({ code: 'BLOCKED', blockers: [b] });
    value(await admin.updateIssue({ key: b, status: 'cancelled' }));
    value(await h.session('x').claimIssue({ key: c }));
  });
});

describe('dispatch order', () => {
  it('orders by effective priority through transitive blocking, then priority, then age, then key', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const low = value(await admin.createIssue({ title: 'low', priority: 4 })).issue.key;
    h.clock.advance(1);
    const mid = value(await admin.createIssue({ title: 'mid', priority: 3, blockedBy: [low] })).issue.key;
    h.clock.advance(1);
    value(await admin.createIssue({ title: 'urgent, blocked by mid', priority: 0, blockedBy: [mid] }));
    h.clock.advance(1);
    value(await admin.createIssue({ title: 'p1 old', priority: 1 }));
    h.clock.advance(1);
    value(await admin.createIssue({ title: 'p1 new', priority: 1 }));
    value(await admin.createIssue({ title: 'p1 same time, higher key', priority: 1 }));
    const ready = value(await admin.readyQueue()).issues;
    expect(ready.map((i) => i.title)).toEqual(['low', 'p1 old', 'p1 new', 'p1 same time, higher key']);
    expect(ready[0].effectivePriority).toBe(0);
    const order: string[] = [];
    const alice = h.session('alice');
    for (let i = 0; i < 4; i++) order.push(value(await alice.nextIssue({}))!.issue.title);
    expect(order).toEqual(['low', 'p1 old', 'p1 new', 'p1 same time, higher key']);
  });

  it('updates effective priority when a blocking relation is removed or a priority changes', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const a = value(await admin.createIssue({ title: 'a', priority: 4 })).issue.key;
    const b = value(await admin.createIssue({ title: 'b', priority: 0, blockedBy: [a] })).issue.key;
    expect(value(await admin.getIssue({ key: a })).issue.effectivePriority).toBe(0);
    value(await admin.updateIssue({ key: b, priority: 2 }));
    expect(value(await admin.getIssue({ key: a })).issue.effectivePriority).toBe(2);
    value(await admin.relate({ key: a, type: 'blocks', other: b, remove: true }));
    expect(value(await admin.getIssue({ key: a })).issue.effectivePriority).toBe(4);
  });

  it('answers issue null when nothing is ready', async () => {
    const h = await harness();
    expect(value(await h.session('a').nextIssue({}))).toBeNull();
  });

  it('filters by labels, requiring all of them', async () => {
    const h = await harness();
    const admin = h.session('admin');
    value(await admin.createIssue({ title: 'ui only', labels: ['ui'] }));
    value(await admin.createIssue({ title: 'ui and bug', labels: ['bug', 'ui'] }));
    expect(value(await h.session('a').nextIssue({ labels: ['ui', 'bug'] }))?.issue.title).toBe('ui and bug');
    expect(value(await h.session('a').nextIssue({ labels: ['ui', 'bug'] }))).toBeNull();
  });

  it('counts a label asked for twice once', async () => {
    const h = await harness();
    value(await h.session('admin').createIssue({ title: 'ui', labels: ['ui'] }));
    expect(value(await h.session('a').nextIssue({ labels: ['ui', 'ui'] }))?.issue.title).toBe('ui');
  });
});

describe('next_batch', () => {
  it('claims up to max ready issues at once, none blocking another', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const a = value(await admin.createIssue({ title: 'a' })).issue.key;
    value(await admin.createIssue({ title: 'b', blockedBy: [a] }));
    value(await admin.createIssue({ title: 'c' }));
    value(await admin.createIssue({ title: 'd' }));
    const { items } = value(await h.session('alice').nextBatch({ max: 10 }));
    expect(items.map((i) => i.issue.title)).toEqual(['a', 'c', 'd']);
    const keys = new Set(items.map((i) => i.issue.key));
    for (const item of items) for (const blocked of item.issue.relations.blocks) expect(keys.has(blocked)).toBe(false);
    expect(new Set(items.map((i) => i.lease.claimToken)).size).toBe(3);
  });

  it('refuses max outside 1 to 50 with INVALID_INPUT', async () => {
    const h = await harness();
    expect(refusal(await h.session('a').nextBatch({ max: 0 })).code).toBe('INVALID_INPUT');
    expect(refusal(await h.session('a').nextBatch({ max: 51 })).code).toBe('INVALID_INPUT');
  });
});

describe('review', () => {
  it('takes a submitted issue through a reviewer claim to done on approve', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const key = value(await admin.createIssue({ title: 'x' })).issue.key;
    const worker = h.session('worker');
    const c = value(await worker.claimIssue({ key }));
    expect(value(await worker.submitForReview({ key, claimToken: c.lease.claimToken!, summary: 'ready' })).issue.status).toBe('review');
    expect(refusal(await h.session('w2').claimIssue({ key }))).toMatchObject({ code: 'NOT_READY', status: 'review' });
    expect(value(await h.session('w2').nextIssue({}))).toBeNull();
    const reviewer = h.session('reviewer');
    const r = value(await reviewer.nextIssue({ role: 'reviewer' }))!;
    expect(r.issue.key).toBe(key);
    expect(value(await reviewer.review({ key, claimToken: r.lease.claimToken!, verdict: 'approve' })).issue.status).toBe('done');
  });

  it('sends an issue back to todo with the note as a comment on changes', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const key = value(await admin.createIssue({ title: 'x' })).issue.key;
    const worker = h.session('worker');
    const c = value(await worker.claimIssue({ key }));
    value(await worker.submitForReview({ key, claimToken: c.lease.claimToken!, summary: 'ready' }));
    const reviewer = h.session('reviewer');
    const r = value(await reviewer.claimIssue({ key, role: 'reviewer' }));
    expect(value(await reviewer.review({ key, claimToken: r.lease.claimToken!, verdict: 'changes', note: 'add tests' })).issue.status).toBe('todo');
    const comments = value(await admin.getIssue({ key })).comments.map((x) => x.text);
    expect(comments).toEqual(['ready', 'add tests']);
  });

  it('turns done into review when the repository requires review', async () => {
    const h = await harness({ requireReview: true });
    const admin = h.session('admin');
    const key = value(await admin.createIssue({ title: 'x' })).issue.key;
    const worker = h.session('worker');
    const c = value(await worker.claimIssue({ key }));
    expect(value(await worker.done({ key, claimToken: c.lease.claimToken! })).issue.status).toBe('review');
    expect(value(await worker.checkClaim({ key })).held).toBe(false);
  });

  it('refuses a worker claim of a done issue with NOT_READY', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const key = value(await admin.createIssue({ title: 'x' })).issue.key;
    value(await admin.updateIssue({ key, status: 'done' }));
    expect(refusal(await h.session('w').claimIssue({ key }))).toMatchObject({ code: 'NOT_READY', status: 'done' });
    expect(refusal(await h.session('r').claimIssue({ key, role: 'reviewer' }))).toMatchObject({ code: 'NOT_READY', status: 'done' });
  });
});

describe('check_claim', () => {
  it('tells the holder it holds the lease and others who does, with seconds left', async () => {
    const h = await harness();
    const admin = h.session('admin');
    const key = value(await admin.createIssue({ title: 'x' })).issue.key;
    const alice = h.session('alice', { renewer: 'watchdog:w' });
    const c = value(await alice.claimIssue({ key }));
    h.clock.advance(MINUTE);
    expect(value(await alice.checkClaim({ key, claimToken: c.lease.claimToken! }))).toMatchObject({
      held: true,
      youHold: true,
      holder: { agent: 'alice', session: 'this' },
      renewer: 'watchdog:w',
      fence: 1,
      secondsLeft: 29 * 60,
    });
    expect(value(await h.session('bob').checkClaim({ key }))).toMatchObject({ held: true, youHold: false, holder: { agent: 'alice', session: 'other_session' } });
    expect(value(await alice.checkClaim({ key, claimToken: 'wrong' })).youHold).toBe(false);
  });
});
