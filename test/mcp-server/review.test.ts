import { describe, expect, it } from 'vitest';
import { repoWithServers } from '../helpers/repoServers.js';
import { ok, refused } from '../helpers/tools.js';

const scratch = repoWithServers(['wt-review']);
const serve = scratch.serve;

describe('review flow', () => {
  it('goes from submission to a reviewer, back to todo with the note, and to done on approval', async () => {
    const worker = await serve('worker');
    const reviewer = await serve('reviewer', {}, scratch.repo.worktrees[0]);
    const key = (await ok(worker, 'create_issue', { title: 'Reviewed work', labels: ['rv'] })).issue.key;
    const claim = await ok(worker, 'next_issue', { labels: ['rv'] });

    const submitted = await ok(worker, 'submit_for_review', { key, claimToken: claim.lease.claimToken, summary: 'Parser rewritten' });
    expect(submitted.issue.status).toBe('review');
    expect((await ok(worker, 'list_claims')).claims).toEqual([]);
    await refused(worker, 'heartbeat', { key, claimToken: claim.lease.claimToken }, 'CLAIM_LOST');

    // A worker neither gets nor claims an issue in review.
    expect((await ok(worker, 'next_issue', { labels: ['rv'] })).issue).toBeNull();
    expect((await refused(worker, 'claim_issue', { key }, 'NOT_READY')).status).toBe('review');

    const review = await ok(reviewer, 'next_issue', { labels: ['rv'], role: 'reviewer' });
    expect(review.issue.key).toBe(key);
    const changes = await ok(reviewer, 'review', { key, claimToken: review.lease.claimToken, verdict: 'changes', note: 'Handle empty input' });
    expect(changes.issue.status).toBe('todo');
    const detail = await ok(reviewer, 'get_issue', { key });
    expect(detail.comments.map((c: { text: string; agent: string }) => [c.agent, c.text])).toContainEqual(['reviewer', 'Handle empty input']);
    expect(detail.lease).toBeNull();

    const rework = await ok(worker, 'next_issue', { labels: ['rv'] });
    expect(rework.issue.key).toBe(key);
    await ok(worker, 'submit_for_review', { key, claimToken: rework.lease.claimToken, summary: 'Empty input handled' });
    const again = await ok(reviewer, 'claim_issue', { key, role: 'reviewer' });
    const approved = await ok(reviewer, 'review', { key, claimToken: again.lease.claimToken, verdict: 'approve' });
    expect(approved.issue.status).toBe('done');
    await refused(reviewer, 'claim_issue', { key, role: 'reviewer' }, 'NOT_READY');
  });

  it('sends done to review when the repository requires review', async () => {
    const worker = await serve('strict-worker', { BATON_REQUIRE_REVIEW: 'true' });
    const key = (await ok(worker, 'create_issue', { title: 'Needs eyes', labels: ['strict'] })).issue.key;
    const claim = await ok(worker, 'next_issue', { labels: ['strict'] });
    const finished = await ok(worker, 'done', { key, claimToken: claim.lease.claimToken, summary: 'done' });
    expect(finished.issue.status).toBe('review');
    expect((await ok(worker, 'check_claim', { key })).held).toBe(false);
  });
});
