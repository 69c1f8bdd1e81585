import type { ErrorCode } from '../../shared/errors.js';

/** The state and answers of the protocol model (model.ts), in the protocol's own terms. */

export type Status = 'todo' | 'doing' | 'review' | 'done' | 'cancelled' | 'stuck';
export type Role = 'worker' | 'reviewer';
export type TokenState = 'live' | 'reclaimed' | 'released' | 'finished' | 'superseded';
export type RelationType = 'blocks' | 'blockedBy' | 'relatesTo' | 'parent';

export interface Caller {
  agent: string;
  session: string;
}

export interface ModelLease {
  token: string;
  agent: string;
  session: string;
  role: Role;
  fence: number;
  claimedAt: number;
  lastRenewedAt: number;
  expiresAt: number;
  /** Whether a checkpoint was waiting when this lease was first claimed. */
  resumed: boolean;
}

export interface ModelCheckpoint {
  note: string;
  state: Record<string, unknown> | null;
  agent: string;
  at: number;
}

export interface ModelIssue {
  key: string;
  number: number;
  title: string;
  status: Status;
  priority: number;
  labels: string[];
  createdAt: number;
  /** Grows by one at every new claim; survives release and reclaim. */
  fence: number;
  reclaimCount: number;
  /** Expiries in a row with no checkpoint between; at `maxReclaims` a todo/doing issue becomes stuck. */
  expiryStreak: number;
  checkpoint: ModelCheckpoint | null;
  /** The lease row, which may be past its expiry until a sweep or a claim clears it. */
  lease: ModelLease | null;
  /** Keys this issue blocks. */
  blocks: Set<string>;
  parent: string | null;
  relates: Set<string>;
  /** Activity event types, oldest first. */
  events: string[];
  comments: string[];
}

export interface ModelToken {
  key: string;
  agent: string;
  session: string;
  state: TokenState;
}

export type Refusal = { ok: false; code: ErrorCode; reason?: string };
export type Outcome<T> = { ok: true; value: T } | Refusal;

/** What a claimer is told. `fresh` means the token must be one never handed out before. */
export interface ModelClaim {
  key: string;
  token: string;
  fresh: boolean;
  fence: number;
  resumed: boolean;
  checkpoint: ModelCheckpoint | null;
  claimedAt: number;
  lastRenewedAt: number;
  expiresAt: number;
}
