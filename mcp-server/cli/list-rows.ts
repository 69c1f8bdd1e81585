import type { Baton } from '../../shared/baton.js';
import { LIMITS } from '../../shared/limits.js';
import type { Result } from '../../shared/result.js';
import { ok } from '../../shared/result.js';
import type { ListIssuesInput } from '../../shared/inputs.js';
import { FINISHED, type IssueSummary, type Status } from '../../shared/types.js';
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
  const statusOf = new Map<string, Status>(issues.map((issue) => [issue.key, issue.status]));
  const outside = await baton.issueStatuses([...new Set(issues.flatMap((issue) => issue.blockedBy))].filter((key) => !statusOf.has(key)));
  if (!outside.ok) return outside;
  for (const [key, status] of outside.value) statusOf.set(key, status);
  const rows: IssueRow[] = [];
  for (const issue of issues) {
    const claim = byKey.get(issue.key) ?? null;
    let checkpointNote = claim?.checkpoint?.note ?? null;
    if (!claim && issue.status === 'doing') {
      const detail = await baton.getIssue({ key: issue.key });
      if (!detail.ok) return detail;
      checkpointNote = detail.value.checkpoint?.note ?? null;
    }
    const blocked = issue.blockedBy.some((blocker) => !FINISHED.includes(statusOf.get(blocker) ?? 'todo'));
    rows.push({ ...issue, blocked, claim, checkpointNote });
  }
  return ok(rows);
}
