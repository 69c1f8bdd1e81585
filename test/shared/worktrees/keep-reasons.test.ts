import { describe, expect, it } from 'vitest';
import { keepReasons, type KeepCode } from '../../../shared/worktrees/keep-reasons.js';
import type { WorktreeView } from '../../../shared/worktrees/worktree-view.js';

const context = { defaultBranch: 'main', here: '/repo' };

/** A linked worktree that tidy may remove: every field at its safe value. */
function safe(overrides: Partial<WorktreeView> = {}): WorktreeView {
  return {
    path: '/repo-worktrees/a',
    head: 'a'.repeat(40),
    branch: 'a',
    main: false,
    bare: false,
    locked: null,
    prunable: null,
    issue: null,
    leases: [],
    sessions: [],
    changes: { uncommitted: [], untracked: [], agentCopies: [] },
    changesError: null,
    merged: true,
    mergedError: null,
    upstream: null,
    ...overrides,
  };
}

const lease = { key: 'BAT-3', agent: 'alice', session: 's1', expiresAt: '2026-01-01T00:30:00.000Z', secondsLeft: 725, lastRenewedAt: '2026-01-01T00:00:00.000Z', lastActiveAt: '2026-01-01T00:00:00.000Z', renewer: null };
const session = { id: 's2', agent: 'bob', pid: 42, host: 'box', startedAt: '2026-01-01T00:00:00.000Z' };
const pushed = { name: 'origin/baton/bat-3-x', unpushed: 0 };

describe('keepReasons', () => {
  it('finds nothing against a clean, merged, unheld linked worktree', () => {
    expect(keepReasons(safe(), context)).toEqual([]);
  });

  it.each<[string, Partial<WorktreeView>, KeepCode, string]>([
    ['the main worktree', { main: true, path: '/main' }, 'main', 'main worktree'],
    ['a locked one, with its reason', { locked: 'on a USB disk' }, 'locked', 'on a USB disk'],
    ['a live lease', { leases: [lease] }, 'lease', 'BAT-3 held by alice, 12m 5s left'],
    ['a live session', { sessions: [session] }, 'session', 'bob (pid 42 on box'],
    ['uncommitted changes', { changes: { uncommitted: ['a.ts', 'b.ts'], untracked: [], agentCopies: [] } }, 'uncommitted', '2 uncommitted changes: a.ts, b.ts'],
    ['untracked files', { changes: { uncommitted: [], untracked: ['1', '2', '3', '4'], agentCopies: [] } }, 'untracked', '4 untracked files: 1, 2, 3, …'],
    ['an unreadable status', { changes: null, changesError: 'index.lock exists' }, 'unreadable', 'index.lock exists'],
    ['an unmerged branch with no upstream', { merged: false }, 'unmerged', 'branch a is not merged into main and has no upstream'],
    ['an unmerged branch with commits not pushed', { merged: false, upstream: { name: 'origin/a', unpushed: 2 } }, 'unmerged', '2 commits not pushed to origin/a'],
    ["a pushed branch of an issue not done", { merged: false, upstream: pushed, issue: { key: 'BAT-3', status: 'doing' } }, 'unmerged', 'BAT-3 is doing, not done'],
    ['a pushed branch of no issue', { merged: false, upstream: pushed }, 'unmerged', 'not the branch of an issue'],
    ['a detached HEAD not merged', { merged: false, branch: null }, 'unmerged', 'detached HEAD aaaaaaaaaaaa'],
    ['merging that git could not tell', { merged: null, mergedError: 'bad object' }, 'unmerged', 'bad object'],
  ])('keeps %s', (_, overrides, code, message) => {
    const reasons = keepReasons(safe(overrides), context);
    expect(reasons.map((r) => r.code)).toEqual([code]);
    expect(reasons[0].message).toContain(message);
  });

  it('keeps the worktree the command runs in, from any folder inside it', () => {
    expect(keepReasons(safe(), { ...context, here: '/repo-worktrees/a/src' }).map((r) => r.code)).toEqual(['current']);
    expect(keepReasons(safe(), { ...context, here: '/repo-worktrees/ab' })).toEqual([]);
  });

  it("lets a done issue's branch go once it is fully pushed, merged or not", () => {
    expect(keepReasons(safe({ merged: false, upstream: pushed, issue: { key: 'BAT-3', status: 'done' } }), context)).toEqual([]);
    expect(keepReasons(safe({ merged: false, upstream: { ...pushed, unpushed: 1 }, issue: { key: 'BAT-3', status: 'done' } }), context).map((r) => r.code)).toEqual(['unmerged']);
  });

  it('gives every reason, one each, not only the first', () => {
    const all = safe({ locked: '', leases: [lease], sessions: [session], merged: false, changes: { uncommitted: ['a'], untracked: ['b'], agentCopies: [] } });
    expect(keepReasons(all, context).map((r) => r.code)).toEqual(['locked', 'lease', 'session', 'uncommitted', 'untracked', 'unmerged']);
  });

  it('does not count unchanged agent copies as untracked work', () => {
    expect(keepReasons(safe({ changes: { uncommitted: [], untracked: [], agentCopies: ['.mcp.json'] } }), context)).toEqual([]);
  });
});
