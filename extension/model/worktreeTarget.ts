import { existsSync } from 'node:fs';
import type { ModelState } from './snapshot.js';

/** The folder to open for a claim's worktree, or why there is none to open. */
export type WorktreeTarget = { path: string } | { problem: string };

/**
 * The worktree a live claim's holder works in, as the Claims view shows it. A worktree on
 * another machine, or removed since, cannot be opened here: say so rather than open an
 * empty window.
 */
export function worktreeTarget(state: ModelState, key: string, exists: (path: string) => boolean = existsSync): WorktreeTarget {
  const claim = state.kind === 'ready' ? state.snapshot.claims.find((c) => c.key === key) : undefined;
  if (!claim) return { problem: `${key} has no live claim any more.` };
  if (!claim.worktree) return { problem: `The holder of ${key} did not record a worktree (its server runs outside git).` };
  if (!exists(claim.worktree)) return { problem: `${claim.worktree} is not on this machine (removed, or the agent runs elsewhere).` };
  return { path: claim.worktree };
}
