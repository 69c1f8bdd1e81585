import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';

const PUSH_LINE = 'refs/heads/topic 1111111111111111111111111111111111111111 refs/heads/topic 0000000000000000000000000000000000000000\n';

describe('baton guard', () => {
  let repo: ScratchRepo;
  beforeEach(() => {
    repo = makeRepo({ worktrees: ['wt-a'] });
  });
  afterEach(() => repo.remove());

  it('installs into core.hooksPath when set, for every worktree, and removes only what it wrote', async () => {
    const shared = join(repo.dir, 'team-hooks');
    repo.git(['config', 'core.hooksPath', shared]);
    const installed = await runCli(['guard', 'install', '--json'], { cwd: repo.worktrees[0] });
    expect(installed.status).toBe(0);
    expect(installed.json()).toMatchObject({ hooksDir: shared, hooksPath: shared, perWorktree: false, installed: 'baton', chained: null });
    expect(readFileSync(join(shared, 'pre-push'), 'utf8')).toContain('guard check');
    expect(existsSync(join(repo.main, '.git', 'hooks', 'pre-push'))).toBe(false);
    const removed = await runCli(['guard', 'uninstall'], { cwd: repo.main });
    expect(removed.stdout).toContain('Removed.');
    expect(existsSync(join(shared, 'pre-push'))).toBe(false);
    // Nothing of Baton's left: uninstalling again changes nothing.
    expect((await runCli(['guard', 'uninstall', '--json'], { cwd: repo.main })).json()).toMatchObject({ changed: false, installed: 'none' });
  });

  it('refuses to install over a hook when a chained hook already sits beside it, changing neither', async () => {
    const hooks = join(repo.main, '.git', 'hooks');
    writeFileSync(join(hooks, 'pre-push'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(join(hooks, 'pre-push.baton-chained'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const run = await runCli(['guard', 'install'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('neither is Baton');
    expect(readFileSync(join(hooks, 'pre-push'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(readFileSync(join(hooks, 'pre-push.baton-chained'), 'utf8')).toBe('#!/bin/sh\nexit 1\n');
  });

  it('lets a push through with a warning when there is no database, and refuses it when guard is "strict"', async () => {
    const passed = await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: repo.main, input: PUSH_LINE });
    expect(passed.status).toBe(0);
    expect(passed.stderr).toMatch(/^baton: warning: the push is not checked: no Baton database at .*\n$/);
    writeFileSync(join(repo.main, '.baton.json'), JSON.stringify({ guard: 'strict' }));
    const refused = await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: repo.main, input: PUSH_LINE });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('guard is "strict"');
    expect(refused.stderr).toContain('git push --no-verify');
    // A tag or a deletion asks nothing of Baton, strict or not.
    const tag = 'refs/tags/v1 1111111111111111111111111111111111111111 refs/tags/v1 0000000000000000000000000000000000000000\n';
    expect((await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: repo.main, input: tag })).status).toBe(0);
  });

  it('is installed by baton init --guard', async () => {
    mkdirSync(join(repo.main, '.vscode'), { recursive: true });
    const run = await runCli(['init', '--guard', '--json'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.json().guard).toMatchObject({ installed: 'baton', changed: true });
    expect((await runCli(['guard', 'status', '--json'], { cwd: repo.worktrees[0] })).json()).toMatchObject({ installed: 'baton' });
  });
});
