import type { Baton } from '../../shared/baton.js';
import { stillBlocks, withBlockerStatuses } from '../../shared/blockers.js';
import { LIMITS } from '../../shared/limits.js';
import { ok, type Result } from '../../shared/result.js';
import type { IssueSummary, Status } from '../../shared/types.js';

/** A list as the store gave it: a page, and whether more follow. */
interface ListRead {
  issues: IssueSummary[];
  nextCursor: string | null;
}

/**
 * Every todo issue an unfinished issue blocks, however many issues there are, each with
 * only its unfinished blockers in `blockedBy`. While the open lists are whole they tell
 * it at no cost: an issue in none of them is finished. Once one is cut, the store says
 * which are blocked (not ready, by the dispatch rule itself), a page at a time, and the
 * statuses of the blockers found in no list read are looked up in one read; that costs a
 * few milliseconds per 100 blocked issues, which a repository of that size pays only then.
 */
export async function readBlocked(baton: Baton, lists: { todo: ListRead; doing: ListRead; review: ListRead }): Promise<Result<IssueSummary[]>> {
  const open = [lists.todo, lists.doing, lists.review];
  if (open.every((l) => l.nextCursor === null)) {
    const unfinished = new Set(open.flatMap((l) => l.issues).map((i) => i.key));
    return ok(narrow(lists.todo.issues, (key) => unfinished.has(key)));
  }

  const notReady: IssueSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await baton.listIssues({ status: 'todo', ready: false, limit: LIMITS.listMax, cursor });
    if (!page.ok) return page;
    notReady.push(...page.value.issues);
    cursor = page.value.nextCursor ?? undefined;
  } while (cursor !== undefined);

  const known = new Map<string, Status>([...open.flatMap((l) => l.issues), ...notReady].map((i) => [i.key, i.status]));
  const statuses = await withBlockerStatuses(baton, notReady, known);
  if (!statuses.ok) return statuses;
  return ok(narrow(notReady, (key) => stillBlocks(statuses.value, key)));
}

/**
 * Keeps the unfinished blockers of each issue, and the issues that have one. A todo issue
 * the store does not offer is blocked (a claim moves an issue to doing); one whose blockers
 * finished between two reads waits for the next read.
 */
function narrow(issues: IssueSummary[], unfinished: (key: string) => boolean): IssueSummary[] {
  return issues.map((i) => ({ ...i, blockedBy: i.blockedBy.filter(unfinished) })).filter((i) => i.blockedBy.length > 0);
}
