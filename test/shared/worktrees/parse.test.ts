import { describe, expect, it } from 'vitest';
import { parseChanges } from '../../../shared/worktrees/git-facts.js';
import { issueKeyOfBranch } from '../../../shared/worktrees/survey.js';
import { parseWorktreeList } from '../../../shared/worktrees/worktree-list.js';
import { badWorktreeName, worktreeRoot } from '../../../shared/worktrees/worktree-root.js';

describe('worktree plumbing parsers', () => {
  it('reads git worktree list --porcelain -z: main first, branch, detached, locked with and without a reason, prunable', () => {
    const out = [
      'worktree /nonexistent/main', `HEAD ${'1'.repeat(40)}`, 'branch refs/heads/main', '',
      'worktree /nonexistent/a', `HEAD ${'2'.repeat(40)}`, 'detached', 'locked', '',
      'worktree /nonexistent/b', `HEAD ${'3'.repeat(40)}`, 'branch refs/heads/baton/bat-1-x', 'locked on a USB disk', 'prunable gitdir file points to non-existent location', '',
      '',
    ].join('\0');
    expect(parseWorktreeList(out)).toEqual([
      { path: '/nonexistent/main', head: '1'.repeat(40), branch: 'main', main: true, bare: false, locked: null, prunable: null },
      { path: '/nonexistent/a', head: '2'.repeat(40), branch: null, main: false, bare: false, locked: '', prunable: null },
      { path: '/nonexistent/b', head: '3'.repeat(40), branch: 'baton/bat-1-x', main: false, bare: false, locked: 'on a USB disk', prunable: 'gitdir file points to non-existent location' },
    ]);
  });

  it('reads git status --porcelain=v1 -z: a rename takes its source path along', () => {
    const out = [' M src/a.ts', 'R  new.ts', 'old.ts', '?? notes.txt', 'UU both.ts', ''].join('\0');
    expect(parseChanges(out)).toEqual({ uncommitted: ['src/a.ts', 'new.ts', 'both.ts'], untracked: ['notes.txt'], agentCopies: [] });
  });

  it("finds an issue's key in its branch name, and none in other names", () => {
    expect(issueKeyOfBranch('baton/bat-12-fix-login')).toBe('BAT-12');
    expect(issueKeyOfBranch('baton/web-3')).toBe('WEB-3');
    expect(issueKeyOfBranch('baton/bat-12x')).toBeNull();
    expect(issueKeyOfBranch('feature/bat-12')).toBeNull();
    expect(issueKeyOfBranch(null)).toBeNull();
  });

  it('puts worktrees beside the main one by default, or where worktreeRoot says', () => {
    expect(worktreeRoot('/src/app', null)).toBe('/src/app-worktrees');
    expect(worktreeRoot('/src/app', '.worktrees')).toBe('/src/app/.worktrees');
    expect(worktreeRoot('/src/app', '/var/agents')).toBe('/var/agents');
  });

  it.each(['../up', 'a/b', '', '-flag', 'x.lock', 'a..b', 'with space', 'é'])('refuses %j as a worktree name', (name) => {
    expect(badWorktreeName(name)).toMatch(/not a worktree name/);
  });

  it.each(['agent-1', 'bat-12', 'A.b_c'])('accepts %j as a worktree name', (name) => {
    expect(badWorktreeName(name)).toBeNull();
  });
});
