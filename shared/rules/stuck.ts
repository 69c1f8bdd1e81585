import { fail, type Result } from '../result.js';
import type { IssueRow } from './rows.js';

/** How a stuck issue is told (the rule itself is `reclaim` in leases.ts). */

/** Why an issue is stuck, as the activity log, `list_issues` and the editor say it. */
export function stuckReason(streak: number): string {
  return `its lease expired ${streak} times in a row with no checkpoint; \`baton reopen\` puts it back to todo`;
}

/** `STUCK`: the refusal of a claim of an issue that kept expiring. */
export function stuckRefusal(issue: IssueRow): Result<never> {
  const reclaims = Number(issue.expiry_streak ?? 0);
  return fail('STUCK', `${issue.key} is stuck: its lease expired ${reclaims} times in a row with no checkpoint. A person decides: \`baton reopen ${issue.key}\` puts it back to todo.`, {
    reclaims,
  });
}
