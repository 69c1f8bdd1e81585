import type { Status } from '../types.js';
import type { Changes, Upstream } from './git-facts.js';
import type { WorktreeEntry } from './worktree-list.js';

/** A live lease whose holder works in a worktree, or on its branch. Never a token. */
export interface WorktreeLease {
  key: string;
  agent: string;
  /** The holding session's short id. */
  session: string;
  expiresAt: string;
  secondsLeft: number;
  lastRenewedAt: string;
  /** When the holder's agent last showed a sign of life; null when not known. */
  lastActiveAt: string | null;
  renewer: string | null;
}

/** A Baton server process that runs in a worktree (docs/protocol.md: sessions). */
export interface WorktreeSession {
  id: string;
  agent: string;
  pid: number;
  host: string;
  startedAt: string;
}

/** A worktree with everything `baton worktree ls` shows and `tidy` decides on. */
export interface WorktreeView extends WorktreeEntry {
  /** The issue whose branch it is on (`baton/<key>-…`), or whose live lease it holds. */
  issue: { key: string; status: Status | null } | null;
  leases: WorktreeLease[];
  /** Live sessions only: those not ended whose process runs (or runs on another machine). */
  sessions: WorktreeSession[];
  /** Null when its folder is gone or git could not read it (`changesError` says why). */
  changes: Changes | null;
  changesError: string | null;
  /** Whether HEAD is in the default branch; null when it cannot be told (`mergedError`). */
  merged: boolean | null;
  mergedError: string | null;
  upstream: Upstream | null;
}
