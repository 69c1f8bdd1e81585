import type { TidyOutcome } from '../../shared/worktrees/tidy.js';

/** What a modal dialog shows: a short question or statement and the lines under it. */
export interface Dialog {
  message: string;
  detail: string;
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** Every kept worktree with each of its reasons, one per line. */
export function keptLines(outcome: TidyOutcome): string[] {
  return outcome.kept.flatMap((kept) => [`${kept.path}${kept.branch ? ` (${kept.branch})` : ''}`, ...kept.reasons.map((reason) => `  · ${reason.message}`)]);
}

/**
 * The confirmation before Tidy Worktrees removes anything: what it would remove and
 * prune (with each branch's fate), then what it keeps and why. `remove` is false when
 * there is nothing to do, and the dialog only informs.
 */
export function tidyPreview(plan: TidyOutcome): Dialog & { remove: boolean } {
  const count = plan.removed.length + plan.pruned.length;
  const lines: string[] = [];
  for (const removed of plan.removed) {
    const branch = removed.branch === null ? '' : removed.branchDeleted ? `, deleting branch ${removed.branch}` : `, keeping branch ${removed.branch}`;
    lines.push(`Remove ${removed.path}${branch}`);
  }
  for (const path of plan.pruned) lines.push(`Forget ${path} (its folder is already gone)`);
  const kept = keptLines(plan);
  if (kept.length) lines.push(...(lines.length ? [''] : []), `Keep ${plural(plan.kept.length, 'worktree')}:`, ...kept);
  if (count === 0) return { remove: false, message: 'No worktree is safe to remove.', detail: lines.join('\n') };
  return {
    remove: true,
    message: `Remove ${plural(count, 'worktree')}?`,
    detail: `${lines.join('\n')}\n\nEach is checked again just before it goes; uncommitted or untracked work, a live lease or a running agent keeps it.`,
  };
}

/** The notification after tidying. */
export function tidyReport(outcome: TidyOutcome): string {
  const done = outcome.removed.length + outcome.pruned.length;
  const parts = [`removed ${plural(done, 'worktree')}`, `kept ${outcome.kept.length}`];
  const deleted = outcome.removed.filter((r) => r.branchDeleted).length;
  if (deleted) parts.push(`deleted ${plural(deleted, 'merged branch')}`);
  return `Baton: ${parts.join(', ')}.`;
}
