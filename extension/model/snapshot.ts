import type { BatonError } from '../../shared/errors.js';
import type { ClaimView, IssueSummary, SessionRecord } from '../../shared/types.js';

/** Everything the Claims view shows, read from the store in one go. */
export interface BatonSnapshot {
  leaseSeconds: number;
  /** Renewers stop renewing an agent idle this long (0: no limit): the tree shows it. */
  idleSeconds: number;
  /** Live leases. */
  claims: ClaimView[];
  /** `fence` of each claimed issue, by key (the claim list does not carry it). */
  fences: Record<string, number>;
  /** Server processes, to tell whose holder still runs. */
  sessions: SessionRecord[];
  /** Claimable issues in dispatch order. */
  ready: IssueSummary[];
  doing: IssueSummary[];
  review: IssueSummary[];
  /** Todo issues an unfinished issue blocks, the newest first, with only those blockers in `blockedBy`. */
  blocked: IssueSummary[];
  /** Issues that need a person (`stuck`), each with its `attention` reason. */
  stuck: IssueSummary[];
  /** Recently finished, newest first. */
  done: IssueSummary[];
  /** Keys of unheld `doing` issues that have a checkpoint: the next claimer resumes them. */
  checkpointed: string[];
  /** The lists above of which the store holds more than were read: their groups say so. */
  cut: CutList[];
}

/** The lists that are read a page at a time; Done never is cut. */
export type CutList = 'ready' | 'doing' | 'review' | 'stuck' | 'blocked';

/** What the model knows at a given moment. */
export type ModelState =
  | { kind: 'loading' }
  | { kind: 'noWorkspace' }
  | { kind: 'noDatabase'; dbPath: string }
  | { kind: 'error'; error: BatonError }
  | { kind: 'ready'; snapshot: BatonSnapshot; dbPath: string };

/** Where the model reads from: the store in the extension, a fake in tests. */
export interface ClaimsSource {
  /** Changes whenever any process commits; cheap enough to ask several times a second. */
  version(): Promise<string>;
  /** What the view shows; `full` reads everything afresh rather than what a source may keep for a moment. */
  load(options?: { full?: boolean }): Promise<ModelState>;
}
