import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fail, ok, type Result } from '../result.js';
import { branchFor } from '../rules/branch.js';
import { copyAgentFiles } from './agent-files.js';
import { defaultBranch } from './default-branch.js';
import { gitMessage, runGit } from './git-run.js';
import { listWorktrees, type WorktreeEntry } from './worktree-list.js';
import { badWorktreeName, worktreeRoot } from './worktree-root.js';

export interface NewWorktreeInput {
  /** Any folder of the repository. */
  cwd: string;
  /** The folder's name under the worktree root; by default the issue's key, or `agent-<n>`. */
  name?: string;
  /** The issue whose branch the worktree is on. */
  issue?: { key: string; title: string };
  /** What a new branch starts from; by default the default branch. */
  base?: string;
  /** `.baton.json`'s `worktreeRoot`. */
  root: string | null;
}

export interface NewWorktree {
  path: string;
  branch: string;
  /** What the new branch was made from; null when an existing branch was checked out. */
  base: string | null;
  /** The agent files copied from the main worktree (git carries the tracked ones). */
  copied: string[];
}

/**
 * `baton worktree new`: a linked worktree under the worktree root, on a new branch from
 * `base` (the issue's branch with `issue`), ready for an agent. An existing branch of that
 * name is checked out as it is, never reset, so an issue's earlier work is where its next
 * agent starts; `base` is then refused rather than ignored.
 */
export async function createWorktree(input: NewWorktreeInput): Promise<Result<NewWorktree>> {
  const listed = await listWorktrees(input.cwd);
  if (!listed.ok) return listed;
  const entries = listed.value;
  const main = entries[0];
  const root = worktreeRoot(main.path, input.root);
  const name = input.name ?? (input.issue ? input.issue.key.toLowerCase() : await freeName(main.path, root, entries));
  const bad = badWorktreeName(name);
  if (bad) return fail('INVALID_INPUT', bad, { field: 'name' });
  const path = join(root, name);
  if (existsSync(path) || entries.some((entry) => entry.path === path)) {
    return fail('INVALID_INPUT', `${path} already exists; choose another name`, { path });
  }
  const branch = input.issue ? branchFor(input.issue.key, input.issue.title) : name;
  const format = await runGit(main.path, ['check-ref-format', '--branch', branch]);
  if (format.code !== 0) return fail('INVALID_INPUT', `"${branch}" is not a valid branch name`, { branch });
  const exists = await hasBranch(main.path, branch);
  let base: string | null = null;
  let add: string[];
  if (exists) {
    if (input.base !== undefined) return fail('INVALID_INPUT', `branch ${branch} already exists; drop --base to check it out as it is`, { branch });
    add = ['worktree', 'add', path, branch];
  } else {
    const from = input.base ?? (await defaultBranch(main.path))?.refs[0] ?? 'HEAD';
    const commit = await runGit(main.path, ['rev-parse', '--verify', '-q', `${from}^{commit}`]);
    if (commit.code !== 0) return fail('INVALID_INPUT', `${from} is not a commit of this repository`, { base: from });
    base = from.replace(/^refs\/(heads|remotes)\//, '');
    // --no-track: a branch made from origin/main would otherwise take it as its upstream,
    // and "pushed" would then mean "contained in main".
    add = ['worktree', 'add', '--no-track', '-b', branch, path, commit.stdout.trim()];
  }
  const added = await runGit(main.path, add);
  if (added.code !== 0) return fail('INVALID_INPUT', `git worktree add: ${gitMessage(added)}`, { path, branch });
  const copied = main.bare ? [] : await copyAgentFiles(main.path, path);
  return ok({ path, branch, base, copied });
}

async function hasBranch(repo: string, branch: string): Promise<boolean> {
  return (await runGit(repo, ['rev-parse', '--verify', '-q', `refs/heads/${branch}`])).code === 0;
}

/** `agent-1`, `agent-2`…: the first whose folder and branch are both free. */
async function freeName(repo: string, root: string, entries: WorktreeEntry[]): Promise<string> {
  for (let n = 1; ; n++) {
    const name = `agent-${n}`;
    const path = join(root, name);
    if (existsSync(path) || entries.some((entry) => entry.path === path)) continue;
    if (!(await hasBranch(repo, name))) return name;
  }
}
