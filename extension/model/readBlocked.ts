import type { Baton } from '../../shared/baton.js';
import { stillBlocks, withBlockerStatuses } from '../../shared/blockers.js';
import { ok, type Result } from '../../shared/result.js';
import type { IssueSummary, Status } from '../../shared/types.js';

/**
 * The blocked issues among `notReady` (todo issues the store does not offer, by the
 * dispatch rule itself), each with only its unfinished blockers in `blockedBy`. The
 * statuses of blockers in none of the lists read (`known`) are looked up in one read.
 */
export async function readBlocked(baton: Baton, notReady: readonly IssueSummary[], known: readonly IssueSummary[]): Promise<Result<IssueSummary[]>> {
  const statuses = await withBlockerStatuses(baton, notReady, new Map<string, Status>([...known, ...notReady].map((i) => [i.key, i.status])));
  if (!statuses.ok) return statuses;
  // A todo issue the store does not offer is blocked (a claim moves an issue to doing); one
  // whose blockers finished between two reads waits for the next read.
  return ok(notReady.map((i) => ({ ...i, blockedBy: i.blockedBy.filter((key) => stillBlocks(statuses.value, key)) })).filter((i) => i.blockedBy.length > 0));
}
