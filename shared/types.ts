/** The shapes of docs/protocol.md sections 3 to 5, as the core hands them out. Times are ISO 8601 strings. */

/** `stuck`: its lease expired `maxReclaims` times in a row with no checkpoint; never dispatched until reopened. */
export const STATUSES = ['todo', 'doing', 'review', 'done', 'cancelled', 'stuck'] as const;
export type Status = (typeof STATUSES)[number];
/** Statuses `update_issue` may set. */
export const SETTABLE_STATUSES = ['todo', 'doing', 'review', 'done', 'cancelled'] as const satisfies readonly Status[];
/** Statuses of work that is over: an issue in one of them no longer blocks anything. */
export const FINISHED: readonly Status[] = ['done', 'cancelled'];

export const ROLES = ['worker', 'reviewer'] as const;
export type Role = (typeof ROLES)[number];

export const RELATION_TYPES = ['blocks', 'blockedBy', 'relatesTo', 'parent'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/** Who is calling: one server process (a session) of one agent. */
export interface Caller {
  agent: string;
  /** Random id minted when the process starts. */
  session: string;
  /** Who keeps this session's leases alive (`vscode:<window>`, `watchdog:<name>`), or null. */
  renewer: string | null;
  /** Top level of the git worktree the session runs in, or null outside git. */
  worktree: string | null;
}

export interface GitState {
  head: string;
  branch: string | null;
  /** Changed paths; `[]` when clean. */
  dirty: string[];
  /**
   * Paths the branch changed since its merge base with the default branch; absent when
   * git could not tell in time, there is no default branch, or there were too many.
   */
  changed?: string[];
}

/** Another live claim whose checkpoint touched some of the same paths. */
export interface Overlap {
  key: string;
  agent: string;
  worktree: string | null;
  /** The paths both touched (dirty, or changed on the branch), sorted; at most 50. */
  files: string[];
}

export interface Checkpoint {
  note: string;
  state: Record<string, unknown> | null;
  agent: string;
  at: string;
  git: GitState | null;
}

export interface Relations {
  blocks: string[];
  blockedBy: string[];
  relatesTo: string[];
  parent: string | null;
  children: string[];
}

export interface Issue {
  key: string;
  title: string;
  body: string;
  status: Status;
  priority: number;
  /** The best priority among this issue and every issue it transitively blocks. */
  effectivePriority: number;
  labels: string[];
  relations: Relations;
  checkpoint: Checkpoint | null;
  reclaimCount: number;
  createdAt: string;
  updatedAt: string;
}

/** An issue in a list: no body, no checkpoint state. */
export interface IssueSummary {
  key: string;
  title: string;
  status: Status;
  priority: number;
  effectivePriority: number;
  labels: string[];
  blockedBy: string[];
  held: boolean;
  /** Only on an issue that needs a person (`stuck`): why. */
  attention?: string;
  createdAt: string;
  updatedAt: string;
}

/** The public view of a lease; `claimToken` appears only in answers to the session that holds it. */
export interface Lease {
  key: string;
  agent: string;
  branch: string;
  worktree: string | null;
  claimedAt: string;
  expiresAt: string;
  lastRenewedAt: string;
  renewer: string | null;
  fence: number;
  claimToken?: string;
  /** In `get_issue` only: when the holding session's agent last showed a sign of life (null when unknown). */
  lastActiveAt?: string | null;
}

export interface ClaimResult {
  issue: Issue;
  lease: Lease;
  checkpoint: Checkpoint | null;
  resumed: boolean;
  /** On a resumed claim whose branch another worktree has checked out: how to continue it here. */
  continueFrom?: Continuation;
}

/** Where a resumed issue's branch is checked out, and the git commands that continue it in this worktree. */
export interface Continuation {
  branch: string;
  /** The branch's last commit. */
  head: string;
  /** The worktree that has the branch checked out. */
  checkedOutIn: string;
  /** The newest Baton session still running in that worktree, or null. */
  session: { agent: string; startedAt: string } | null;
  /** Run in this worktree, in order. */
  commands: string[];
}

export interface ClaimStatus {
  held: boolean;
  youHold: boolean;
  holder: { agent: string; session: 'this' | 'other_session' } | null;
  claimedAt: string | null;
  expiresAt: string | null;
  lastRenewedAt: string | null;
  renewer: string | null;
  fence: number | null;
  secondsLeft: number | null;
}

export interface Comment {
  id: number;
  text: string;
  agent: string;
  at: string;
}

export interface ActivityEvent {
  at: string;
  key: string | null;
  type: string;
  agent: string;
  detail: string;
}

/** One live lease as `list_claims` shows it: never a token. */
export interface ClaimView {
  key: string;
  title: string;
  agent: string;
  /** A short opaque id of the holding session, not a secret. */
  session: string;
  branch: string;
  worktree: string | null;
  claimedAt: string;
  expiresAt: string;
  lastRenewedAt: string;
  renewer: string | null;
  secondsLeft: number;
  checkpoint: Checkpoint | null;
  /** Other live claims, in other worktrees, whose latest checkpoints touched the same paths. */
  overlaps: Overlap[];
  /** When the holding session's agent last showed a sign of life (a tool call, a hook event); null when unknown. */
  lastActiveAt: string | null;
}

export interface IssueDetail {
  issue: Issue;
  lease: Lease | null;
  checkpoint: Checkpoint | null;
  relations: Relations;
  comments: Comment[];
  activity: ActivityEvent[];
  /** The overlaps of the issue's live claim (see ClaimView); empty when nobody holds it. */
  overlaps: Overlap[];
}

/** A running server process as recorded in the store, for renewers and `baton doctor`. */
export interface SessionRecord {
  id: string;
  agent: string;
  pid: number;
  host: string;
  renewer: string | null;
  worktree: string | null;
  startedAt: string;
  endedAt: string | null;
  /** When its agent last showed a sign of life; null for a session recorded before Baton kept it. */
  lastActiveAt: string | null;
}

/**
 * A lease this session lost since it last heard: taken over, expired and cleared, or
 * ended by a person. Carried in `notices` by the next answer to it, once.
 */
export interface LeaseNotice {
  key: string;
  kind: 'lease_lost';
  reason: 'expired' | 'released' | 'finished' | 'superseded';
  /** The agent that ended it (the new holder, whoever cleared the expired lease, the person who released it). */
  by: string;
  at: string;
}

/** A lost lease found but not yet told, with its token's hash (never the token), which marks it told. */
export type LostLease = LeaseNotice & { hash: string };
