import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWorktreeList } from '../../shared/git-worktrees.js';
import { planContinuation } from '../../shared/rules/continuation.js';
import { makeRepo, QUIET_ENV, type ScratchRepo } from '../helpers/git.js';

describe('continuing a branch another worktree has checked out', () => {
  let repo: ScratchRepo;
  beforeEach(() => {
    repo = makeRepo({ worktrees: ['wt-a', 'wt-b'] });
  });
  afterEach(() => repo.remove());

  it("gives commands that take the branch at its last commit and leave the other worktree's files alone", async () => {
    const [wtA, wtB] = repo.worktrees;
    repo.git(['switch', '-q', '-c', 'baton/bat-1-x'], wtA);
    repo.write('done.txt', 'committed\n', wtA);
    repo.git(['add', 'done.txt'], wtA);
    repo.git(['commit', '-q', '-m', 'work'], wtA);
    repo.write('done.txt', 'half-edited\n', wtA);
    const head = repo.git(['rev-parse', 'HEAD'], wtA);

    const plan = await planContinuation(wtB, 'baton/bat-1-x');
    expect(plan).toEqual({
      branch: 'baton/bat-1-x',
      head,
      checkedOutIn: wtA,
      commands: [`git -C ${wtA} switch --detach`, 'git switch baton/bat-1-x'],
    });
    for (const command of plan!.commands) execFileSync('sh', ['-c', command], { cwd: wtB, env: QUIET_ENV, stdio: 'pipe' });
    expect(repo.git(['branch', '--show-current'], wtB)).toBe('baton/bat-1-x');
    expect(repo.git(['rev-parse', 'HEAD'], wtB)).toBe(head);
    expect(repo.git(['rev-parse', 'HEAD'], wtA)).toBe(head);
    expect(readFileSync(join(wtA, 'done.txt'), 'utf8')).toBe('half-edited\n');
    // Now only this worktree has it: nothing more to continue, from either side.
    expect(await planContinuation(wtB, 'baton/bat-1-x')).toBeNull();
    expect(await planContinuation(wtA, 'baton/bat-1-x')).toEqual({ branch: 'baton/bat-1-x', head, checkedOutIn: wtB, commands: expect.any(Array) });
  });

  it('has nothing to offer for a branch no other worktree has checked out', async () => {
    expect(await planContinuation(repo.worktrees[1], 'baton/bat-9-nowhere')).toBeNull();
  });

  it('reads the porcelain list, detached and bare entries included', () => {
    const out = ['worktree /r', 'HEAD abc', 'branch refs/heads/main', '', 'worktree /r/wt', 'HEAD def', 'detached', '', 'worktree /bare', 'bare', '', ''].join('\0');
    expect(parseWorktreeList(out)).toEqual([
      { path: '/r', head: 'abc', branch: 'main' },
      { path: '/r/wt', head: 'def', branch: null },
      { path: '/bare', head: null, branch: null },
    ]);
  });
});
