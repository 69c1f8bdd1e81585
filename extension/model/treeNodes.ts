import type { Overlap } from '../../shared/types.js';
/** The Claims tree as plain data: built by `buildTree`, drawn by the TreeItem classes. */

export const GROUP_IDS = ['attention', 'claimed', 'doing', 'ready', 'blocked', 'review', 'done'] as const;
export type GroupId = (typeof GROUP_IDS)[number];

export interface GroupNode {
  kind: 'group';
  id: GroupId;
  label: string;
  children: Array<ClaimNode | IssueNode>;
  expanded: boolean;
  /** The store holds more of this group than the view read (the list was cut). */
  more: boolean;
}

export interface ClaimNode {
  kind: 'claim';
  /** Stable across reloads, so the tree keeps a claim expanded. */
  id: string;
  key: string;
  title: string;
  agent: string;
  branch: string;
  /** Which claim of the issue this row shows, so that acting on it cannot hit a later one; undefined when not read. */
  fence: number | undefined;
  msLeft: number;
  countdown: string;
  /** Within the warning threshold of expiry. */
  warning: boolean;
  /** Its agent has been idle past the idle limit: renewers have stopped, and it will lapse. */
  idle: boolean;
  /** This window renews it while its holder runs. */
  keptAliveHere: boolean;
  hasCheckpoint: boolean;
  /** Other live claims, elsewhere, whose checkpoints touched the same files: the row warns of them. */
  overlaps: Overlap[];
  description: string;
  /** Markdown. */
  tooltip: string;
  details: DetailNode[];
}

export interface IssueNode {
  kind: 'issue';
  id: string;
  group: Exclude<GroupId, 'claimed'>;
  key: string;
  title: string;
  description: string;
  /** Markdown, written when read. */
  readonly tooltip: string;
  /** What else of the issue the row's tooltip shows: a row whose stamp, description and title are unchanged is not redrawn. */
  stamp: string;
  /** An unheld `doing` issue with a checkpoint: the next claimer resumes it. */
  resumed: boolean;
  hasCheckpoint: boolean;
  /** Unfinished issues that block it: in the Blocked group (empty in the others). */
  blockers: string[];
}

export type DetailField = 'holder' | 'branch' | 'worktree' | 'renewer' | 'lastRenewal' | 'fence' | 'checkpoint';

export interface DetailNode {
  kind: 'detail';
  id: string;
  key: string;
  field: DetailField;
  label: string;
  value: string;
  /** Markdown, when the value needs more room than a row. */
  tooltip?: string;
}

export type TreeNode = GroupNode | ClaimNode | IssueNode | DetailNode;
