import type { BatonSnapshot } from '../../extension/model/snapshot.js';
import type { ClaimView, IssueSummary, SessionRecord } from '../../shared/types.js';

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
export const WINDOW = 'vscode:this-window';

export const iso = (ms: number): string => new Date(ms).toISOString();

export function issue(key: string, over: Partial<IssueSummary> = {}): IssueSummary {
  return {
    key,
    title: `Title of ${key}`,
    status: 'todo',
    priority: 2,
    effectivePriority: over.priority ?? 2,
    labels: [],
    blockedBy: [],
    held: false,
    createdAt: iso(T0 - 3_600_000),
    updatedAt: iso(T0 - 3_600_000),
    ...over,
  };
}

export function claim(key: string, expiresInMs: number, over: Partial<ClaimView> = {}): ClaimView {
  return {
    key,
    title: `Title of ${key}`,
    agent: 'claude',
    session: `session-${key}`,
    branch: `baton/${key.toLowerCase()}-title`,
    worktree: '/repo',
    claimedAt: iso(T0 - 60_000),
    expiresAt: iso(T0 + expiresInMs),
    lastRenewedAt: iso(T0 - 60_000),
    renewer: null,
    secondsLeft: Math.floor(expiresInMs / 1000),
    checkpoint: null,
    overlaps: [],
    lastActiveAt: null,
    ...over,
  };
}

export function session(id: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return { id, agent: 'claude', pid: 4242, host: 'this-host', renewer: null, worktree: '/repo', startedAt: iso(T0 - 120_000), endedAt: null, lastActiveAt: iso(T0 - 30_000), ...over };
}

export function snapshot(over: Partial<BatonSnapshot> = {}): BatonSnapshot {
  return { leaseSeconds: 1800, idleSeconds: 3600, claims: [], fences: {}, sessions: [], ready: [], doing: [], review: [], blocked: [], done: [], stuck: [], checkpointed: [], cut: [], ...over };
}
