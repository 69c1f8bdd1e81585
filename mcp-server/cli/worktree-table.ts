import { relative } from 'node:path';
import type { WorktreeView } from '../../shared/worktrees/worktree-view.js';
import type { Cell, Colors, Column } from './render.js';
import { countdown, paintCountdown, secondsUntil, table } from './render.js';
import { ago } from './tables.js';

const COLUMNS: Column[] = [
  { header: 'WORKTREE', flex: true, min: 12 },
  { header: 'BRANCH', flex: true, min: 10 },
  { header: 'ISSUE' },
  { header: 'HOLDER', flex: true, min: 8 },
  { header: 'LEFT' },
  { header: 'IDLE' },
  { header: 'SESSIONS', flex: true, min: 8 },
  { header: 'CHANGES' },
  { header: 'MERGED' },
];

/**
 * The `baton worktree ls` table. IDLE is the time since the holder's agent was last
 * active (`lastActiveAt`; its last renewal where that is not known); paths are shown relative to the main worktree's folder.
 */
export function worktreesTable(c: Colors, worktrees: WorktreeView[], repo: string, now: number, width?: number): string {
  const rows: Cell[][] = worktrees.map((view) => {
    const lease = view.leases[0];
    const left = lease ? secondsUntil(lease.expiresAt, now) : null;
    const where = view.main ? `${view.path} (main)` : relative(repo, view.path) || view.path;
    return [
      { text: where, paint: view.main ? c.dim : undefined },
      { text: view.branch ?? (view.head ? `(detached ${view.head.slice(0, 8)})` : '-') },
      { text: view.issue ? `${view.issue.key}${view.issue.status ? ` ${view.issue.status}` : ''}` : '' },
      { text: view.leases.map((l) => l.agent).join(', ') },
      left === null ? { text: '' } : { text: countdown(left), paint: () => paintCountdown(c, left) },
      { text: lease ? ago(now - Date.parse(lease.lastActiveAt ?? lease.lastRenewedAt)) : '' },
      { text: view.sessions.map((s) => `${s.agent} (${s.pid})`).join(', ') },
      changesCell(c, view),
      mergedCell(c, view),
    ];
  });
  return table(c, COLUMNS, rows, width);
}

function changesCell(c: Colors, view: WorktreeView): Cell {
  if (view.prunable !== null) return { text: 'folder gone', paint: c.yellow };
  if (view.changesError !== null) return { text: 'unreadable', paint: c.red };
  if (!view.changes) return { text: '' };
  const { uncommitted, untracked } = view.changes;
  if (!uncommitted.length && !untracked.length) return { text: 'clean', paint: c.dim };
  const parts = [uncommitted.length ? `${uncommitted.length} changed` : '', untracked.length ? `${untracked.length} untracked` : ''].filter(Boolean);
  return { text: parts.join(', '), paint: c.yellow };
}

function mergedCell(c: Colors, view: WorktreeView): Cell {
  if (view.main || view.prunable !== null) return { text: '' };
  if (view.merged === true) return { text: 'yes', paint: c.green };
  if (view.merged === null) return { text: '?', paint: c.dim };
  if (view.upstream && view.upstream.unpushed === 0) return { text: 'no (pushed)' };
  return { text: 'no', paint: c.yellow };
}
