import { fail, ok, type Result } from '../result.js';
import type { Tx } from '../store/store.js';
import type { Caller } from '../types.js';
import { recordEvent } from './activity.js';
import { addComment } from './comments.js';
import { touchIssue } from './issues.js';
import { endLease, getLease, isLive, reclaim } from './leases.js';
import type { IssueRow, LeaseRow } from './rows.js';

/**
 * How a lease ends by its holder's word: release (the issue stays `doing`, claimable),
 * done, submission for review, a review verdict. Each is called with a lease that
 * `authorize` already accepted.
 */

export async function releaseLease(tx: Tx, issue: IssueRow, lease: LeaseRow, agent: string, note?: string): Promise<void> {
  await endLease(tx, lease, 'released');
  await touchIssue(tx, issue.id, {});
  await recordEvent(tx, issue, 'released', agent, note ? `released: ${note}` : 'released');
}

/** `done`; with `requireReview` a worker's done goes to review instead. */
export async function finish(tx: Tx, issue: IssueRow, lease: LeaseRow, caller: Caller, requireReview: boolean, summary?: string): Promise<void> {
  if (requireReview && lease.role === 'worker') {
    await submit(tx, issue, lease, caller, summary ?? 'Done; review required.');
    return;
  }
  await endLease(tx, lease, 'finished');
  await touchIssue(tx, issue.id, { status: 'done' });
  if (summary) await addComment(tx, issue, caller.agent, summary);
  await recordEvent(tx, issue, 'done', caller.agent, summary ? `done: ${summary}` : 'done');
}

export async function submit(tx: Tx, issue: IssueRow, lease: LeaseRow, caller: Caller, summary: string): Promise<void> {
  await endLease(tx, lease, 'finished');
  await touchIssue(tx, issue.id, { status: 'review' });
  await addComment(tx, issue, caller.agent, summary);
  await recordEvent(tx, issue, 'submitted', caller.agent, `submitted for review: ${summary}`);
}

/** A reviewer's verdict: approve ends in `done`, changes sends the issue back to `todo` with the note as a comment. */
export async function judge(
  tx: Tx,
  issue: IssueRow,
  lease: LeaseRow,
  caller: Caller,
  verdict: 'approve' | 'changes',
  note?: string,
): Promise<Result<void>> {
  if (lease.role !== 'reviewer' || issue.status !== 'review') {
    return fail('NOT_READY', `${issue.key} is not claimed for review; claim it with role "reviewer" first.`, { status: issue.status });
  }
  await endLease(tx, lease, 'finished');
  if (verdict === 'approve') {
    await touchIssue(tx, issue.id, { status: 'done' });
    if (note) await addComment(tx, issue, caller.agent, note);
    await recordEvent(tx, issue, 'approved', caller.agent, note ? `approved: ${note}` : 'approved');
  } else {
    await touchIssue(tx, issue.id, { status: 'todo' });
    await addComment(tx, issue, caller.agent, note ?? 'Changes requested.');
    await recordEvent(tx, issue, 'changes_requested', caller.agent, note ? `changes requested: ${note}` : 'changes requested');
  }
  return ok(undefined);
}

/**
 * A person's release (`baton release`, the editor): ends whatever lease holds the issue,
 * without its token. The holder's token stops working at once (`CLAIM_LOST`, released).
 * With `fence`, only the claim of that fence, the one the person saw and confirmed: a
 * claim taken since is left alone.
 */
export async function releaseByOperator(tx: Tx, issue: IssueRow, by: string, note?: string, fence?: number): Promise<boolean> {
  let lease = await getLease(tx, issue.id);
  if (!lease || (fence !== undefined && Number(lease.fence) !== fence)) return false;
  if (!isLive(lease, tx.now)) {
    if (await reclaim(tx, issue, lease, by)) return false;
    // A renewal committed after this transaction read the lease: release the renewed one.
    lease = await getLease(tx, issue.id);
    if (!isLive(lease, tx.now)) return false;
  }
  await endLease(tx, lease, 'released', by);
  await touchIssue(tx, issue.id, {});
  await recordEvent(tx, issue, 'released', by, `released the lease of ${lease.agent}${note ? `: ${note}` : ''}`);
  return true;
}
