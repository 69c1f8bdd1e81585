import { describe, expect, it } from 'vitest';
import { renderStory } from '../../extension/model/renderDocuments.js';
import { harness, MINUTE, value } from '../helpers/core.js';

describe('Show History', () => {
  it("renders the same story as baton why: one table row an event, the holding's renewals grouped", async () => {
    const h = await harness();
    const ann = h.session('ann', { worktree: '/work/ann' });
    const key = value(await ann.createIssue({ title: 'Fix | the pipe' })).issue.key;
    const claim = value(await ann.claimIssue({ key }));
    for (let i = 0; i < 3; i++) {
      h.clock.advance(MINUTE);
      value(await ann.heartbeat({ key, claimToken: claim.lease.claimToken! }));
    }
    const story = value(await ann.story({ key }));
    const doc = renderStory(story);
    expect(doc).toContain(`# History of ${key}: Fix \\| the pipe`);
    const rows = doc.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| When') && !l.startsWith('| ---'));
    expect(rows).toHaveLength(story.lines.length);
    expect(rows.map((r) => r.split(' | ')[1])).toEqual(['created', 'claimed', 'renewed', 'holding']);
    expect(doc).toMatch(/\| renewed \| ann \| \/work\/ann \| renewed 3× by ann \(heartbeats and checkpoints\) between/);
    expect(doc).not.toContain(claim.lease.claimToken!);
  });
});
