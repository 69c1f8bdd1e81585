import { describe, expect, it } from 'vitest';
import { agentSessions, ancestors } from '../../shared/hooks/agent-sessions.js';
import type { SessionRecord } from '../../shared/types.js';

/*
 * A process tree: tmux (10) runs two shells (20, 30); each shell runs a Claude Code (21,
 * 31). Claude 21 runs its Baton server (22, via npx 23 → 24) and its hook (`sh -c` 25 →
 * node 26); Claude 31 runs its server 32.
 */
const PARENT: Record<number, number> = { 10: 1, 20: 10, 30: 10, 21: 20, 31: 30, 22: 21, 23: 21, 24: 23, 25: 21, 26: 25, 32: 31 };
const parentOf = (pid: number) => PARENT[pid] ?? null;
const alive = () => true;

function session(id: string, pid: number, over: Partial<SessionRecord> = {}): SessionRecord {
  return { id, agent: 'claude-code', pid, host: 'here', renewer: null, worktree: '/repo', startedAt: '2026-01-01T00:00:00.000Z', endedAt: null, lastActiveAt: null, ...over };
}

const hook = { ancestors: ancestors(26, parentOf), host: 'here', worktree: '/repo' };

describe("the agent's sessions", () => {
  it('walks up from the hook, never to pid 1', () => {
    expect(ancestors(26, parentOf)).toEqual([25, 21, 20, 10]);
  });

  it('are those under the nearest ancestor the hook shares with a server, not another agent’s of the same worktree', () => {
    const mine = [session('a', 22), session('b', 24)];
    const other = session('c', 32);
    expect(agentSessions([...mine, other], hook, alive, parentOf).map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('leave out sessions ended, of another machine, of a dead process, or of another worktree', () => {
    const sessions = [
      session('ended', 22, { endedAt: '2026-01-01T01:00:00.000Z' }),
      session('elsewhere', 22, { host: 'there' }),
      session('other-worktree', 22, { worktree: '/repo/wt-b' }),
      session('dead', 24),
    ];
    expect(agentSessions(sessions, hook, (pid) => pid !== 24, parentOf)).toEqual([]);
  });

  it('without process ancestry, are the sessions of the hook’s worktree and agent', () => {
    const sessions = [session('a', 22), session('b', 32, { agent: 'codex' }), session('c', 33, { worktree: '/other' })];
    const noTree = { ancestors: [], host: 'here', worktree: '/repo', agent: 'claude-code' };
    expect(agentSessions(sessions, noTree, alive, () => null).map((s) => s.id)).toEqual(['a']);
    expect(agentSessions(sessions, { ...noTree, worktree: null }, alive, () => null)).toEqual([]);
  });
});
