import type { Baton } from '../../shared/baton.js';
import { stillBlocks, withBlockerStatuses } from '../../shared/blockers.js';
import { LIMITS } from '../../shared/limits.js';
import type { Result } from '../../shared/result.js';
import { ok } from '../../shared/result.js';
import type { ListIssuesInput } from '../../shared/inputs.js';
import type { IssueSummary } from '../../shared/types.js';
import type { IssueRow } from './tables.js';

/** Every issue matching `filter`, up to `limit`, following cursors; `keep` drops some on the way. */
export async function listAll(
  baton: Baton,
  filter: Omit<ListIssuesInput, 'limit' | 'cursor'>,
  limit = Number.POSITIVE_INFINITY,
  keep: (issue: IssueSummary) => boolean = () => true,
): Promise<Result<IssueSummary[]>> {
  const issues: IssueSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await baton.listIssues({ ...filter, limit: LIMITS.listMax, cursor });
    if (!page.ok) return page;
    for (const issue of page.value.issues) {
      if (keep(issue)) issues.push(issue);
      if (issues.length >= limit) return ok(issues);
    }
    cursor = page.value.nextCursor ?? undefined;
  } while (cursor);
  return ok(issues);
}

/**
 * Joins issues with the live claims on them, their latest checkpoint note, and whether an
 * unfinished issue blocks them. Only an unheld `doing` issue needs a look of its own (its
 * note says where to resume; held ones carry it in their claim), and only blockers
 * outside the list need their status looked up, all in one read.
 */
export async function withClaims(baton: Baton, issues: IssueSummary[]): Promise<Result<IssueRow[]>> {
  const claims = await baton.listClaims();
  if (!claims.ok) return claims;
  const byKey = new Map(claims.value.claims.map((claim) => [claim.key, claim]));
  const statuses = await withBlockerStatuses(baton, issues, new Map(issues.map((issue) => [issue.key, issue.status])));
  if (!statuses.ok) return statuses;
  const rows: IssueRow[] = [];
  for (const issue of issues) {
    const claim = byKey.get(issue.key) ?? null;
    let checkpointNote = claim?.checkpoint?.note ?? null;
    if (!claim && issue.status === 'doing') {
      const detail = await baton.getIssue({ key: issue.key });
      if (!detail.ok) return detail;
      checkpointNote = detail.value.checkpoint?.note ?? null;
    }
    const blocked = issue.blockedBy.some((blocker) => stillBlocks(statuses.value, blocker));
    rows.push({ ...issue, blocked, claim, checkpointNote });
  }
  return ok(rows);
}
