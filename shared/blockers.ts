import type { Baton } from './baton.js';
import { ok, type Result } from './result.js';
import { FINISHED, type IssueSummary, type Status } from './types.js';

/**
 * `statuses` with the status of every blocker of `issues` it lacks, read in one go. A
 * blocker the store does not know stays out of it.
 */
export async function withBlockerStatuses(baton: Baton, issues: readonly IssueSummary[], statuses: Map<string, Status>): Promise<Result<Map<string, Status>>> {
  const unknown = [...new Set(issues.flatMap((issue) => issue.blockedBy))].filter((key) => !statuses.has(key));
  if (unknown.length === 0) return ok(statuses);
  const found = await baton.issueStatuses(unknown);
  if (!found.ok) return found;
  for (const [key, status] of found.value) statuses.set(key, status);
  return ok(statuses);
}

/** Whether the issue `key` still blocks others: its status is unfinished, or unknown. */
export function stillBlocks(statuses: ReadonlyMap<string, Status>, key: string): boolean {
  return !FINISHED.includes(statuses.get(key) ?? 'todo');
}
