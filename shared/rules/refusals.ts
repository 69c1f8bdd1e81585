import type { Tx } from '../store/store.js';
import { hashToken } from '../tokens.js';
import type { Caller } from '../types.js';
import { recordEvent } from './activity.js';
import { getLease, isLive } from './leases.js';
import type { IssueRow, TokenRow } from './rows.js';

/**
 * Records a late write of a lease this issue once had (`CLAIM_LOST`), as a `refused`
 * event naming the refused fence, in the transaction that refuses it: the write changes
 * nothing of the issue, its lease or its tokens; only the log learns of it. A token
 * never issued for the issue is not recorded: a guess or a typo tells no story, and
 * anyone could fill the log with them.
 */
export async function recordRefusal(tx: Tx, issue: IssueRow, token: string, operation: string, caller: Caller, reason: string): Promise<void> {
  const row = await tx.get<TokenRow>('SELECT * FROM tokens WHERE hash = ?', [hashToken(token)]);
  if (!row || Number(row.issue_id) !== issue.id) return;
  const lease = await getLease(tx, issue.id);
  const now = isLive(lease, tx.now) ? `; fence ${lease.fence} is held by ${lease.agent}` : '';
  const where = caller.worktree ? ` from ${caller.worktree}` : '';
  await recordEvent(tx, issue, 'refused', caller.agent, `late ${operation} with fence ${row.fence} refused (${reason})${where}${now}`);
}
