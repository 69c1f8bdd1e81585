import { fail, ok, type Result } from '../result.js';
import type { Tx } from '../store/store.js';
import { recordEvent } from './activity.js';
import { touchIssue } from './issues.js';
import { releaseByOperator } from './finish.js';
import type { IssueRow } from './rows.js';

/**
 * What a person does to an issue without a token (`baton close`, `baton reopen`): the
 * lease rules still hold, so a live lease is ended the way `baton release` ends it, and
 * its holder's later writes are refused with `CLAIM_LOST` (released).
 */

/** Ends any live lease and marks the issue done; already done, it is left as it is. */
export async function closeByOperator(tx: Tx, issue: IssueRow, by: string, maxReclaims: number, reason?: string): Promise<Result<{ released: boolean }>> {
  if (issue.status === 'done') return ok({ released: false });
  const released = await releaseByOperator(tx, issue, by, maxReclaims, reason ? `closing: ${reason}` : 'closing');
  await touchIssue(tx, issue.id, { status: 'done' });
  await recordEvent(tx, issue, 'closed', by, `${issue.status} → done${reason ? `: ${reason}` : ''}`);
  return ok({ released });
}

/** Statuses `baton reopen` takes back to `todo`: work that was ended, or stopped as stuck. */
export const REOPENABLE = ['done', 'cancelled', 'stuck'] as const;

/** Puts a done, cancelled or stuck issue back to `todo`, with a fresh expiry streak. */
export async function reopenIssue(tx: Tx, issue: IssueRow, by: string): Promise<Result<void>> {
  if (!(REOPENABLE as readonly string[]).includes(issue.status)) {
    return fail('NOT_READY', `${issue.key} is ${issue.status}; only a done, cancelled or stuck issue can be reopened.`, { status: issue.status });
  }
  await touchIssue(tx, issue.id, { status: 'todo', expiry_streak: 0 });
  await recordEvent(tx, issue, 'reopened', by, `${issue.status} → todo`);
  return ok(undefined);
}
