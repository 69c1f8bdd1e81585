import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ok, type Result } from '../result.js';
import { gitMessage, runGit } from './git-run.js';
import { type KeepReason, keepReasons } from './keep-reasons.js';
import { surveyWorktrees, type WorktreeReads } from './survey.js';
import type { WorktreeView } from './worktree-view.js';
import { listWorktrees } from './worktree-list.js';

/** What tidy would do, decided from one survey; nothing is changed by making it. */
export interface TidyPlan {
  repo: string;
  defaultBranch: string | null;
  /** Safe by every rule. */
  remove: WorktreeView[];
  keep: Array<{ view: WorktreeView; reasons: KeepReason[] }>;
  /** Folders already gone, which `git worktree prune` forgets. */
  prune: WorktreeView[];
}

/** A worktree as tidy reports it. */
export interface TidyKept {
  path: string;
  branch: string | null;
  reasons: KeepReason[];
}

export interface TidyRemoved {
  path: string;
  branch: string | null;
  /** Deleted with `git branch -d`: only a branch merged into the default branch. */
  branchDeleted: boolean;
  /** Why the branch stays, when it does. */
  branchKept: string | null;
}

export interface TidyOutcome {
  removed: TidyRemoved[];
  kept: TidyKept[];
  pruned: string[];
}

/**
 * Decides for every worktree of the repository around `cwd`: remove, keep (with every
 * reason), or prune. `here` is the folder the caller runs in, never removed.
 */
export async function planTidy(cwd: string, baton: WorktreeReads, here: string | null): Promise<Result<TidyPlan>> {
  const survey = await surveyWorktrees(cwd, baton);
  if (!survey.ok) return survey;
  const { repo, defaultBranch, worktrees } = survey.value;
  const context = { defaultBranch: defaultBranch?.name ?? null, here };
  const plan: TidyPlan = { repo, defaultBranch: context.defaultBranch, remove: [], keep: [], prune: [] };
  for (const view of worktrees) {
    if (view.prunable !== null) {
      if (view.locked === null) plan.prune.push(view);
      else plan.keep.push({ view, reasons: [{ code: 'locked', message: `its folder is gone, but it is locked${view.locked ? ` (${view.locked})` : ''}, so git keeps its record` }] });
      continue;
    }
    const reasons = keepReasons(view, context);
    if (reasons.length) plan.keep.push({ view, reasons });
    else plan.remove.push(view);
  }
  return ok(plan);
}

/** The plan as its outcome would read if carried out: for `--dry-run` and the editor's preview. */
export function planOutcome(plan: TidyPlan): TidyOutcome {
  return {
    removed: plan.remove.map((view) => ({ path: view.path, branch: view.branch, ...branchFate(view) })),
    kept: plan.keep.map(({ view, reasons }) => ({ path: view.path, branch: view.branch, reasons })),
    pruned: plan.prune.map((view) => view.path),
  };
}

/**
 * Carries out a plan. Each worktree is surveyed again right before it goes (a session may
 * have started in it, an agent may have written a file since the plan), and removed with
 * `git worktree remove` without `--force`, so git refuses anything unclean as well. Its
 * branch is deleted with `git branch -d` only when merged; otherwise it stays.
 */
export async function applyTidy(plan: TidyPlan, baton: WorktreeReads, here: string | null): Promise<Result<TidyOutcome>> {
  const outcome: TidyOutcome = { removed: [], kept: plan.keep.map(({ view, reasons }) => ({ path: view.path, branch: view.branch, reasons })), pruned: [] };
  for (const planned of plan.remove) {
    const again = await surveyWorktrees(plan.repo, baton, planned.path);
    if (!again.ok) return again;
    const view = again.value.worktrees[0];
    // Gone meanwhile (removed by someone else): nothing left to decide.
    if (!view) continue;
    const reasons = keepReasons(view, { defaultBranch: again.value.defaultBranch?.name ?? null, here });
    if (reasons.length) {
      outcome.kept.push({ path: view.path, branch: view.branch, reasons });
      continue;
    }
    const copies = setAside(plan.repo, view.path, view.changes?.agentCopies ?? []);
    const removed = await runGit(plan.repo, ['worktree', 'remove', view.path]);
    if (removed.code !== 0) {
      copies.restore();
      outcome.kept.push({ path: view.path, branch: view.branch, reasons: [{ code: 'refused', message: `git worktree remove refused: ${gitMessage(removed)}` }] });
      continue;
    }
    outcome.removed.push({ path: view.path, branch: view.branch, ...(await deleteBranch(plan.repo, view)) });
  }
  if (plan.prune.length) {
    const pruned = await runGit(plan.repo, ['worktree', 'prune']);
    const after = pruned.code === 0 ? await listWorktrees(plan.repo) : null;
    const left = new Set(after?.ok ? after.value.map((entry) => entry.path) : plan.prune.map((view) => view.path));
    outcome.pruned = plan.prune.map((view) => view.path).filter((path) => !left.has(path));
  }
  return ok(outcome);
}

/**
 * Deletes the unchanged agent copies of a worktree about to be removed (`git worktree
 * remove` refuses untracked files), with a way to put them back if git refuses anyway.
 */
function setAside(repo: string, worktree: string, copies: string[]): { restore(): void } {
  for (const path of copies) rmSync(join(worktree, path), { force: true });
  return {
    restore: () => {
      for (const path of copies) copyFileSync(join(repo, path), join(worktree, path));
    },
  };
}

/** What happens to a removed worktree's branch. */
function branchFate(view: WorktreeView): { branchDeleted: boolean; branchKept: string | null } {
  if (view.branch === null) return { branchDeleted: false, branchKept: null };
  if (view.merged === true) return { branchDeleted: true, branchKept: null };
  return { branchDeleted: false, branchKept: 'not merged into the default branch (pushed, of a done issue)' };
}

async function deleteBranch(repo: string, view: WorktreeView): Promise<{ branchDeleted: boolean; branchKept: string | null }> {
  const fate = branchFate(view);
  if (!fate.branchDeleted || view.branch === null) return fate;
  const deleted = await runGit(repo, ['branch', '-d', view.branch]);
  if (deleted.code === 0) return fate;
  return { branchDeleted: false, branchKept: `git branch -d refused: ${gitMessage(deleted)}` };
}
