import { describe, expect, it } from 'vitest';
import { harness, MINUTE, value } from '../helpers/core.js';

const DAY = 24 * 60 * MINUTE;

describe('retention', () => {
  it('folds the old history of a finished issue into one line of its story, and keeps what must be kept', async () => {
    const h = await harness({ historyDays: 10 });
    const ann = h.session('ann');
    const done = value(await ann.createIssue({ title: 'finished long ago' })).issue.key;
    const open = value(await ann.createIssue({ title: 'open for ages' })).issue.key;
    const held = value(await ann.createIssue({ title: 'held now' })).issue.key;

    const first = value(await ann.claimIssue({ key: done })).lease.claimToken!;
    value(await ann.checkpoint({ key: done, claimToken: first, note: 'step one' }));
    value(await ann.heartbeat({ key: done, claimToken: first }));
    value(await ann.checkpoint({ key: done, claimToken: first, note: 'step two, the last' }));
    value(await ann.done({ key: done, claimToken: first }));
    const openToken = value(await ann.claimIssue({ key: open })).lease.claimToken!;
    value(await ann.checkpoint({ key: open, claimToken: openToken, note: 'open work' }));
    value(await ann.release({ key: open, claimToken: openToken }));
    value(await ann.nextIssue({ requestId: 'old-request' }));

    h.clock.advance(11 * DAY);
    const heldToken = value(await ann.claimIssue({ key: held })).lease.claimToken!;
    value(await ann.nextIssue({ requestId: 'new-request' }));
    const eventsBefore = value(await ann.activity({ key: open, limit: 1000 })).events.length;

    const pruned = value(await ann.prune());
    expect(pruned).toMatchObject({ checkpoints: 1, tokens: 1, requests: 1, more: false });
    expect(pruned.events).toBeGreaterThan(0);

    // The finished issue: its activity folded to one line, its latest checkpoint kept.
    const story = value(await ann.story({ key: done }));
    expect(story.lines.map((l) => l.kind)).toEqual(['folded']);
    expect(story.lines[0].text).toMatch(/^older history, folded by retention: 3 renewed, 2 checkpoint, 1 claimed, 1 created, 1 done between \S+ and \S+$/);
    expect(value(await ann.getIssue({ key: done })).checkpoint?.note).toBe('step two, the last');
    // The open issue keeps everything; the live lease and its token still work.
    expect(value(await ann.activity({ key: open, limit: 1000 })).events).toHaveLength(eventsBefore);
    expect(value(await ann.getIssue({ key: open })).checkpoint?.note).toBe('open work');
    expect(value(await ann.heartbeat({ key: held, claimToken: heldToken })).lease.key).toBe(held);
    // A request id within its day still replays its answer.
    const replay = value(await ann.nextIssue({ requestId: 'new-request' }));
    expect(replay?.issue.key).toBe(open);
  });

  it('runs bounded: a run stops at its limit and says more is due', async () => {
    const h = await harness({ historyDays: 1 });
    const ann = h.session('ann');
    for (let i = 0; i < 3; i++) {
      const key = value(await ann.createIssue({ title: `issue ${i}` })).issue.key;
      value(await ann.updateIssue({ key, status: 'cancelled' }));
    }
    h.clock.advance(2 * DAY);
    expect(value(await ann.prune({ limit: 4 }))).toMatchObject({ events: 4, more: true });
    expect(value(await ann.prune({ limit: 4 }))).toMatchObject({ events: 2, more: false });
    expect(value(await ann.prune({ limit: 4 }))).toMatchObject({ events: 0, more: false });
  });

  it("prunes for running servers at most once an hour, whichever of them asks, while baton prune always runs", async () => {
    const h = await harness({ historyDays: 1 });
    const [ann, bob] = [h.session('ann'), h.session('bob')];
    const cancelled = async (title: string) => value(await ann.updateIssue({ key: value(await ann.createIssue({ title })).issue.key, status: 'cancelled' }));
    await cancelled('first');
    h.clock.advance(30 * MINUTE);
    await cancelled('second');
    // Only the first is past the day now: the servers' retention folds it and settles.
    h.clock.advance(DAY - 29 * MINUTE);
    expect(value(await ann.pruneIfDue()).events).toBeGreaterThan(0);
    // The second is past the day too within the hour: no server's retention looks again yet.
    h.clock.advance(40 * MINUTE);
    expect(value(await bob.pruneIfDue())).toEqual({ events: 0, checkpoints: 0, tokens: 0, requests: 0, more: false });
    expect(value(await ann.pruneIfDue()).events).toBe(0);
    expect(value(await bob.prune()).events).toBeGreaterThan(0);
    // An hour on, retention runs again.
    await cancelled('third');
    h.clock.advance(DAY + MINUTE);
    expect(value(await bob.pruneIfDue()).events).toBeGreaterThan(0);
  });

  it('folds nothing younger than historyDays', async () => {
    const h = await harness({ historyDays: 10 });
    const ann = h.session('ann');
    const key = value(await ann.createIssue({ title: 'recent' })).issue.key;
    value(await ann.updateIssue({ key, status: 'done' }));
    h.clock.advance(9 * DAY);
    expect(value(await ann.prune())).toMatchObject({ events: 0, checkpoints: 0, tokens: 0 });
    expect(value(await ann.prune({ olderThanDays: 0 })).events).toBe(2);
  });
});
