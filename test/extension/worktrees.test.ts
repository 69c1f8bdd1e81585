import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatonSource } from '../../extension/model/batonSource.js';
import type { ModelState } from '../../extension/model/snapshot.js';
import { tidyPreview, tidyReport } from '../../extension/model/tidySummary.js';
import { worktreeTarget } from '../../extension/model/worktreeTarget.js';
import { createWorktree } from '../../shared/worktrees/create.js';
import { applyTidy, planOutcome, planTidy, type TidyOutcome } from '../../shared/worktrees/tidy.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { claim, snapshot, T0 } from './fixtures.js';

const ready = (claims = [claim('BAT-1', 60_000, { worktree: '/work/agents/bat-1' }), claim('BAT-2', 60_000, { worktree: null })]): ModelState => ({
  kind: 'ready',
  dbPath: '/db',
  snapshot: snapshot({ claims }),
});

describe("the Claims view's worktree detail", () => {
  it("opens the claim's worktree when it is on this machine", () => {
    expect(worktreeTarget(ready(), 'BAT-1', (path) => path === '/work/agents/bat-1')).toEqual({ path: '/work/agents/bat-1' });
  });

  it('says why it opens nothing: a worktree elsewhere or removed, none recorded, a claim gone', () => {
    expect(worktreeTarget(ready(), 'BAT-1', () => false)).toEqual({ problem: expect.stringContaining('not on this machine') });
    expect(worktreeTarget(ready(), 'BAT-2', () => true)).toEqual({ problem: expect.stringContaining('did not record a worktree') });
    expect(worktreeTarget(ready(), 'BAT-9', () => true)).toEqual({ problem: 'BAT-9 has no live claim any more.' });
    expect(worktreeTarget({ kind: 'loading' }, 'BAT-1', () => true)).toEqual({ problem: 'BAT-1 has no live claim any more.' });
  });
});

describe('Tidy Worktrees… dialogs', () => {
  const outcome: TidyOutcome = {
    removed: [
      { path: '/w/a', branch: 'a', branchDeleted: true, branchKept: null },
      { path: '/w/done', branch: 'baton/bat-2-x', branchDeleted: false, branchKept: 'not merged' },
    ],
    kept: [{ path: '/w/b', branch: 'b', reasons: [{ code: 'lease', message: 'live lease on BAT-3 held by alice' }, { code: 'untracked', message: '1 untracked file: x' }] }],
    pruned: ['/w/gone'],
  };

  it('asks before removing, listing each removal with its branch, then each kept worktree with every reason', () => {
    const preview = tidyPreview(outcome);
    expect(preview.remove).toBe(true);
    expect(preview.message).toBe('Remove 3 worktrees?');
    expect(preview.detail.split('\n').slice(0, 8)).toEqual([
      'Remove /w/a, deleting branch a',
      'Remove /w/done, keeping branch baton/bat-2-x',
      'Forget /w/gone (its folder is already gone)',
      '',
      'Keep 1 worktree:',
      '/w/b (b)',
      '  · live lease on BAT-3 held by alice',
      '  · 1 untracked file: x',
    ]);
  });

  it('only informs when nothing is safe to remove', () => {
    const preview = tidyPreview({ removed: [], pruned: [], kept: outcome.kept });
    expect(preview).toMatchObject({ remove: false, message: 'No worktree is safe to remove.' });
    expect(preview.detail).toContain('live lease on BAT-3');
  });

  it('reports what it did', () => {
    expect(tidyReport(outcome)).toBe('Baton: removed 3 worktrees, kept 1, deleted 1 merged branch.');
  });
});

describe('Tidy Worktrees… on a real repository, through the window’s own database connection', () => {
  let repo: ScratchRepo;
  let source: BatonSource;
  afterEach(() => {
    source.dispose();
    repo.remove();
  });

  it('shows the plan of the shared rules and removes only what it showed as safe', async () => {
    repo = makeRepo();
    source = new BatonSource({ cwd: repo.main, renewer: 'vscode:test', env: { PATH: process.env.PATH } as NodeJS.ProcessEnv });
    const clean = await createWorktree({ cwd: repo.main, name: 'clean', root: null });
    const busy = await createWorktree({ cwd: repo.main, name: 'busy', root: null });
    if (!clean.ok || !busy.ok) throw new Error('worktrees not made');
    writeFileSync(join(busy.value.path, 'work.txt'), 'unsaved\n');
    const baton = await source.baton();
    if (!baton.ok) throw new Error(baton.error.message);
    const plan = await planTidy(repo.main, baton.value, repo.main);
    if (!plan.ok) throw new Error(plan.error.message);
    const preview = tidyPreview(planOutcome(plan.value));
    expect(preview.message).toBe('Remove 1 worktree?');
    expect(preview.detail).toContain(`Remove ${clean.value.path}, deleting branch clean`);
    expect(preview.detail).toContain('1 untracked file: work.txt');
    const done = await applyTidy(plan.value, baton.value, repo.main);
    if (!done.ok) throw new Error(done.error.message);
    expect(existsSync(clean.value.path)).toBe(false);
    expect(existsSync(join(busy.value.path, 'work.txt'))).toBe(true);
  });
});
