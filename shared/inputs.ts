import type { RelationType, Role, Status } from './types.js';

/** Inputs of the core operations; the MCP server's zod schemas produce exactly these. */

export interface NextIssueInput {
  labels?: string[];
  role?: Role;
  requestId?: string;
}
export interface NextBatchInput {
  max: number;
  labels?: string[];
  requestId?: string;
}
export interface ClaimIssueInput {
  key: string;
  claimToken?: string;
  role?: Role;
}
export interface CheckClaimInput {
  key: string;
  claimToken?: string;
}
export interface LeaseInput {
  key: string;
  claimToken: string;
}
export interface CheckpointInput extends LeaseInput {
  note: string;
  state?: Record<string, unknown>;
}
export interface ReleaseInput extends LeaseInput {
  note?: string;
}
export interface DoneInput extends LeaseInput {
  summary?: string;
}
export interface SubmitForReviewInput extends LeaseInput {
  summary: string;
}
export interface ReviewInput extends LeaseInput {
  verdict: 'approve' | 'changes';
  note?: string;
}
export interface CreateIssueInput {
  title: string;
  body?: string;
  priority?: number;
  labels?: string[];
  blockedBy?: string[];
  parent?: string;
}
export interface UpdateIssueInput {
  key: string;
  title?: string;
  body?: string;
  priority?: number;
  labels?: string[];
  status?: Status;
}
export interface ListIssuesInput {
  status?: Status;
  label?: string;
  ready?: boolean;
  text?: string;
  limit?: number;
  cursor?: string;
}
export interface RelateInput {
  key: string;
  type: RelationType;
  other: string;
  remove?: boolean;
}
export interface CommentInput {
  key: string;
  text: string;
}
export interface ActivityInput {
  key?: string;
  limit?: number;
}
/** What a renewer (the editor, the watchdog) asks to keep alive: leases of these live sessions. */
export interface RenewInput {
  sessions: string[];
  /** Only leases recorded with this renewer; omit for any. */
  renewer?: string;
  /** The renewal is a sign of life of these sessions' agents (a hook, not a renewer): mark them active too. */
  active?: boolean;
}
