import { describe, expect, it } from 'vitest';
import { ok } from '../../shared/result.js';
import { harness, MINUTE, value } from '../helpers/core.js';

describe('the story of an issue', () => {
  it('says why a renewed lease expired: when it was last renewed, which renewer stopped, and that its server ended', async () => {
    const h = await harness();
    const ann = h.session('ann', { renewer: 'vscode:w1', worktree: '/work/ann' });
    value(await ann.registerSession({ pid: 4242, host: 'here' }));
    const key = value(await ann.createIssue({ title: 'renewed, then abandoned' })).issue.key;
    value(await ann.claimIssue({ key }));
    for (let i = 0; i < 14; i++) {
      h.clock.advance(MINUTE);
      value(await ann.renewLeases({ sessions: [ann.caller.session], renewer: 'vscode:w1' }));
    }
    value(await ann.endSession());
    h.clock.advance(31 * MINUTE);
    value(await h.session('sweeper').sweep());

    const { lines } = value(await ann.story({ key }));
    expect(lines.map((l) => l.kind)).toEqual(['created', 'claimed', 'renewed', 'reclaimed']);
    expect(lines[2]).toMatchObject({ agent: 'ann', worktree: '/work/ann', text: expect.stringMatching(/^renewed 14× by vscode:w1 between \d\d:\d\d:\d\d and \d\d:\d\d:\d\d$/) });
    expect(lines[3].text).toContain('(renewed 14× before)');
    expect(lines[3].text).toContain('its renewer vscode:w1 stopped renewing it');
    expect(lines[3].text).toMatch(/its server \(pid 4242\) ended at \S+/);
  });

  it('names a renewal_stopped event of the holder as the cause, when there is one', async () => {
    const h = await harness();
    const ann = h.session('ann', { renewer: 'vscode:w1' });
    const key = value(await ann.createIssue({ title: 'went idle' })).issue.key;
    value(await ann.claimIssue({ key }));
    h.clock.advance(5 * MINUTE);
    // Written as the liveness rules record it when a renewer stops for an idle agent.
    await h.store.write(async (tx) =>
      ok(await tx.run(`INSERT INTO events (issue_id, key, type, agent, detail, at) SELECT id, key, 'renewal_stopped', 'ann', 'idle', ? FROM issues WHERE key = ?`, [tx.now, key])),
    );
    h.clock.advance(31 * MINUTE);
    value(await h.session('sweeper').sweep());
    const { lines } = value(await ann.story({ key }));
    expect(lines.map((l) => l.kind)).toEqual(['created', 'claimed', 'renewal_stopped', 'reclaimed']);
    expect(lines[2].text).toBe('renewal stopped: idle');
    expect(lines[3].text).toMatch(/its renewal stopped \(idle\) at \S+/);
    expect(lines[3].text).toContain('(never renewed after the claim)');
  });

  it('ends with the live lease, and never shows a token', async () => {
    const h = await harness();
    const ann = h.session('ann');
    const key = value(await ann.createIssue({ title: 'held' })).issue.key;
    const token = value(await ann.claimIssue({ key })).lease.claimToken!;
    const story = value(await ann.story({ key }));
    expect(story.lines.at(-1)).toMatchObject({ kind: 'holding', agent: 'ann', text: expect.stringMatching(/^holds it now: fence 1, expires at \S+, no renewer$/) });
    expect(JSON.stringify(story)).not.toContain(token);
  });
});
