import { basename } from 'node:path';
import type { ClaimView, IssueSummary } from '../../shared/types.js';
import type { Cell, Colors, Column } from './render.js';
import { countdown, paintCountdown, paintPriority, paintStatus, secondsUntil, table } from './render.js';

/** An issue as `baton ls` shows it: the summary plus the live claim on it, if any. */
export interface IssueRow extends IssueSummary {
  /** An unfinished issue blocks it (`blockedBy` lists finished blockers too). */
  blocked: boolean;
  claim: ClaimView | null;
  /** The latest checkpoint's note, held or not (an unheld `doing` issue resumes from it). */
  checkpointNote: string | null;
}

const ISSUE_COLUMNS: Column[] = [
  { header: 'STATUS' },
  { header: 'KEY' },
  { header: 'PRI' },
  { header: 'TITLE', flex: true, min: 16 },
  { header: 'HOLDER', flex: true, min: 8 },
  { header: 'LEFT' },
  { header: 'CHECKPOINT', flex: true, min: 10 },
];

/**
 * The `baton ls` table. Countdowns are computed from `expiresAt` against `now`, so a
 * live view can redraw every second without asking the store again.
 */
export function issuesTable(c: Colors, rows: IssueRow[], now: number, width?: number): string {
  const cells: Cell[][] = rows.map((row) => {
    const left = row.claim ? secondsUntil(row.claim.expiresAt, now) : null;
    const status = statusLabel(row, left);
    return [
      { text: status, paint: () => paintStatus(c, row.status, left !== null && left > 0) + status.slice(row.status.length) },
      { text: row.key, paint: c.bold },
      { text: `P${row.priority}`, paint: () => paintPriority(c, row.priority) },
      { text: row.title },
      { text: row.claim?.agent ?? '' },
      left === null ? { text: '' } : { text: countdown(left), paint: () => paintCountdown(c, left) },
      { text: row.checkpointNote ?? '', paint: c.dim },
    ];
  });
  return table(c, ISSUE_COLUMNS, cells, width);
}

/** `doing` alone says nothing about whether someone holds it: say which. */
function statusLabel(row: IssueRow, secondsLeft: number | null): string {
  if (row.status === 'doing' && (secondsLeft === null || secondsLeft <= 0)) {
    return row.checkpointNote !== null ? 'doing (resumable)' : 'doing (unheld)';
  }
  if (row.status === 'todo' && row.blocked) return 'todo (blocked)';
  return row.status;
}

const CLAIM_COLUMNS: Column[] = [
  { header: 'KEY' },
  { header: 'TITLE', flex: true, min: 16 },
  { header: 'HOLDER', flex: true, min: 8 },
  { header: 'LEFT' },
  { header: 'RENEWED' },
  { header: 'ACTIVE' },
  { header: 'RENEWER', flex: true, min: 8 },
  { header: 'WORKTREE', flex: true, min: 8 },
  { header: 'CHECKPOINT', flex: true, min: 10 },
  { header: 'OVERLAPS', flex: true, min: 10 },
];

/** A claim's overlaps in a few words: `BAT-2 parser.ts +1`, one per overlapping claim. */
export function overlapsCell(claim: ClaimView): string {
  return claim.overlaps.map((o) => `${o.key} ${o.files[0]}${o.files.length > 1 ? ` +${o.files.length - 1}` : ''}`).join(', ');
}

/**
 * The `baton claims` table: every live lease with its countdown, and when its agent was
 * last active, in yellow once past the idle limit (`idleSeconds`, 0: none), where renewers stop.
 */
export function claimsTable(c: Colors, claims: ClaimView[], now: number, width?: number, idleSeconds = 0): string {
  const cells: Cell[][] = claims.map((claim) => {
    const left = secondsUntil(claim.expiresAt, now);
    return [
      { text: claim.key, paint: c.bold },
      { text: claim.title },
      { text: claim.agent },
      { text: countdown(left), paint: () => paintCountdown(c, left) },
      { text: `${ago(now - Date.parse(claim.lastRenewedAt))} ago` },
      activeCell(c, claim.lastActiveAt, now, idleSeconds),
      { text: claim.renewer ?? '-', paint: claim.renewer ? undefined : c.dim },
      { text: claim.worktree ? basename(claim.worktree) : '-' },
      { text: claim.checkpoint?.note ?? '', paint: c.dim },
      { text: overlapsCell(claim), paint: claim.overlaps.length > 0 ? c.yellow : undefined },
    ];
  });
  return table(c, CLAIM_COLUMNS, cells, width);
}

function activeCell(c: Colors, lastActiveAt: string | null, now: number, idleSeconds: number): Cell {
  if (lastActiveAt === null) return { text: '-', paint: c.dim };
  const idleMs = now - Date.parse(lastActiveAt);
  if (idleSeconds > 0 && idleMs >= idleSeconds * 1000) return { text: `idle ${ago(idleMs)}`, paint: c.yellow };
  return { text: `${ago(idleMs)} ago` };
}

/** A short elapsed time: `4s`, `3m`, `2h`. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h`;
}
