import type { Tx } from '../store/store.js';
import type { GitState, Overlap } from '../types.js';
import { type CheckpointRow, toCheckpoint } from './rows.js';

/**
 * Overlap warnings (docs/protocol.md, "Overlaps"): two live claims whose latest
 * checkpoints touched the same paths (dirty in their worktree, or changed on their branch
 * since it left the default branch) will collide when merged. Claims in one worktree are
 * never compared: their checkpoints read the same working tree, so they always would.
 */

/** At most this many shared paths are named per overlap. */
export const OVERLAP_FILES_MAX = 50;

/** A live claim and the paths its latest checkpoint touched. */
export interface ClaimPaths {
  key: string;
  agent: string;
  worktree: string | null;
  paths: ReadonlySet<string>;
}

/** The paths a checkpoint's git state touched: dirty ones and those the branch changed. */
export function touchedPaths(git: GitState | null | undefined): Set<string> {
  return new Set(git ? [...git.dirty, ...(git.changed ?? [])] : []);
}

/** The other claims `claim` overlaps, with the paths both touched. */
export function overlapsOf(claim: ClaimPaths, others: readonly ClaimPaths[]): Overlap[] {
  const overlaps: Overlap[] = [];
  if (claim.paths.size === 0) return overlaps;
  for (const other of others) {
    if (other.key === claim.key || (claim.worktree !== null && other.worktree === claim.worktree)) continue;
    const files = [...other.paths].filter((p) => claim.paths.has(p)).sort();
    if (files.length > 0) overlaps.push({ key: other.key, agent: other.agent, worktree: other.worktree, files: files.slice(0, OVERLAP_FILES_MAX) });
  }
  return overlaps;
}

/** Every live claim with the paths of its issue's latest checkpoint. */
export async function liveClaimPaths(tx: Tx): Promise<ClaimPaths[]> {
  const rows = await tx.all<CheckpointRow & { key: string; holder: string; worktree: string | null }>(
    `SELECT c.*, i.key, l.agent AS holder, l.worktree FROM leases l JOIN issues i ON i.id = l.issue_id JOIN checkpoints c ON c.id = i.checkpoint_id
     WHERE l.expires_at > ?`,
    [tx.now],
  );
  return rows.map((r) => ({ key: r.key, agent: r.holder, worktree: r.worktree, paths: touchedPaths(toCheckpoint(r).git) }));
}

/** The overlaps of one live claim whose latest checkpoint recorded `git`, against every other live claim. */
export async function overlapsFor(tx: Tx, claim: { key: string; agent: string; worktree: string | null }, git: GitState | null | undefined): Promise<Overlap[]> {
  const paths = touchedPaths(git);
  if (paths.size === 0) return [];
  return overlapsOf({ ...claim, paths }, await liveClaimPaths(tx));
}

/** Claims as `list_claims` lists them, each with its overlaps among them all. */
export function withOverlaps<C extends { key: string; agent: string; worktree: string | null; checkpoint: { git: GitState | null } | null }>(
  claims: readonly C[],
): (C & { overlaps: Overlap[] })[] {
  const all = claims.map((c) => ({ key: c.key, agent: c.agent, worktree: c.worktree, paths: touchedPaths(c.checkpoint?.git) }));
  return claims.map((c, i) => ({ ...c, overlaps: overlapsOf(all[i], all) }));
}
