import type { Baton } from '../baton.js';
import type { BatonConfig } from '../config.js';
import type { Result } from '../result.js';
import type { TokenChange } from '../rules/leases.js';
import type { Caller, GitState, LostLease } from '../types.js';

/**
 * The operations of `Baton` that write: a server that does not write itself forwards them.
 * `leaseNotices`, which runs at every tool call, is in neither list: it is a read
 * (`lostLeases`) and, only when there is a loss to tell, a write (`tellLosses`).
 */
export const WRITE_OPERATIONS = [
  'nextIssue',
  'nextBatch',
  'claimIssue',
  'heartbeat',
  'checkpoint',
  'release',
  'done',
  'submitForReview',
  'review',
  'createIssue',
  'updateIssue',
  'relate',
  'comment',
  'releaseAsOperator',
  'closeAsOperator',
  'reopen',
  'prune',
  'pruneIfDue',
  'renewLeases',
  'registerSession',
  'endSession',
  'sweep',
  'markActive',
  'recordRenewalStopped',
  'endSessions',
  'hookEvent',
  'tellLosses',
] as const satisfies readonly (keyof Baton)[];

export type WriteOperation = (typeof WRITE_OPERATIONS)[number];

/**
 * The operations that record the caller's worktree (HEAD, branch, changed paths). Its own
 * server reads it and sends it with the request: the writer runs every server's writes
 * one after another, and a `git status` there (several milliseconds of its CPU to spawn
 * alone) would hold all of them up.
 */
export const RECORDS_WORKTREE: ReadonlySet<WriteOperation> = new Set(['checkpoint']);

/**
 * Operations the writer runs without the exactly-once record: a hook event (several
 * small transactions) is sent by a process that never retries it nor confirms it, and
 * running one twice changes nothing more (a renewal is a reset; a notice is told once).
 */
export const UNRECORDED: ReadonlySet<WriteOperation> = new Set(['hookEvent']);

const WRITES: ReadonlySet<string> = new Set(WRITE_OPERATIONS);

/**
 * The operations of `Baton` that only read: a server that does not hold the database
 * sends them to the writer too. They need no record: run twice, a read answers twice.
 * An operation in neither list runs on the caller's own copy, opened for it.
 */
export const READ_OPERATIONS = [
  'checkClaim',
  'getIssue',
  'listIssues',
  'listClaims',
  'activity',
  'readyQueue',
  'liveFences',
  'recentlyDone',
  'issueStatuses',
  'listSessions',
  'unrenewedLeases',
  'story',
  'pushRefusals',
  'lostLeases',
] as const satisfies readonly (keyof Baton)[];

export type ReadOperation = (typeof READ_OPERATIONS)[number];

const READS: ReadonlySet<string> = new Set(READ_OPERATIONS);

export function isReadOperation(name: unknown): name is ReadOperation {
  return typeof name === 'string' && READS.has(name);
}

export function isWriteOperation(name: unknown): name is WriteOperation {
  return typeof name === 'string' && WRITES.has(name);
}

/**
 * What identifies one forwarded write wherever it runs: `id` is recorded with the write
 * in the same transaction, and `key` seals its answer there. `confirmed` lists earlier
 * requests whose answers reached their caller, so their records can go.
 */
export interface RequestTag {
  id: string;
  /** 32 bytes, base64. */
  key: string;
  confirmed: string[];
}

/** One write, sent by a server to the one that writes for it, as one line of JSON. */
export interface WriteRequest {
  /** Numbers the requests of one connection, so answers can come back in any order. */
  seq: number;
  op: WriteOperation;
  args: unknown[];
  caller: Caller;
  config: BatonConfig;
  /** The session's plain tokens, which some operations read. */
  tokens: [string, string][];
  tag: RequestTag;
  /** The caller's worktree, for the operations in `RECORDS_WORKTREE`; absent, the writer reads it. */
  git?: GitState | null;
  /** Sessions whose lost leases the writer looks up once the operation has run (`LostLeasesAsked`). */
  lostLeasesOf?: string[];
}

/**
 * Every tool call also asks for the session's lost leases. A server that sends the call to
 * the writer asks in the same request, which the writer answers in `lostLeases`: one
 * request per call, not two. Only the look-up rides along; telling a loss is a write of
 * its own (`tellLosses`), recorded so that it is told once even if its writer dies.
 */
export type LostLeasesAsked = Pick<WriteRequest, 'lostLeasesOf'>;

/** One read, sent as a write is, without the tag: a read runs as often as it is sent. */
export interface ReadRequest extends LostLeasesAsked {
  seq: number;
  op: ReadOperation;
  args: unknown[];
  caller: Caller;
  config: BatonConfig;
  tokens: [string, string][];
}

export type ForwardedRequest = WriteRequest | ReadRequest;

/** A request before its connection numbers it. */
export type UnsentRequest = Omit<WriteRequest, 'seq'> | Omit<ReadRequest, 'seq'>;

export function isWriteRequest(request: ForwardedRequest): request is WriteRequest {
  return isWriteOperation(request.op);
}

/**
 * What an answer's JSON cannot carry as it is: `issueStatuses` answers a Map, which
 * travels as its entries.
 */
export function encodeResult(op: string, result: Result<unknown>): Result<unknown> {
  return op === 'issueStatuses' && result.ok && result.value instanceof Map ? { ok: true, value: [...result.value] } : result;
}

export function decodeResult(op: string, result: Result<unknown>): Result<unknown> {
  return op === 'issueStatuses' && result.ok && Array.isArray(result.value) ? { ok: true, value: new Map(result.value as [unknown, unknown][]) } : result;
}

/**
 * The answer, with what the operation changed in the session's tokens, and whether the
 * write's record is in the database (it removed the confirmed records with it). A write
 * that changed nothing has none.
 */
export type WriteAnswer = { seq: number; result: Result<unknown>; tokens: TokenChange[]; recorded: boolean; lostLeases?: LostLease[] } | { seq: number; failure: string };

/**
 * How long the record of a forwarded write, and its answer, are kept at least when its
 * caller never confirms it (the record goes at most a minute later: see tagged-write.ts).
 */
export const FORWARDED_KEPT_MS = 10 * 60_000;

/** What a request id is: 32 hex digits (a random UUID without its dashes). */
export const REQUEST_ID = /^[0-9a-f]{32}$/;

/** A malformed line gets no answer: the connection is closed, and its caller runs its calls itself. */
export function parseRequest(line: string): ForwardedRequest | undefined {
  try {
    const value = JSON.parse(line) as Partial<WriteRequest> | Partial<ReadRequest>;
    if (typeof value.seq !== 'number' || !Array.isArray(value.args)) return undefined;
    if (typeof value.caller?.session !== 'string' || typeof value.config?.prefix !== 'string' || !Array.isArray(value.tokens)) return undefined;
    const asked = value.lostLeasesOf;
    if (asked !== undefined && !(Array.isArray(asked) && asked.every((session) => typeof session === 'string'))) return undefined;
    if (isReadOperation(value.op)) return value as ReadRequest;
    if (!isWriteOperation(value.op) || !('tag' in value)) return undefined;
    // Nothing but what forwardWrites makes: ids are kept with the sealed answers.
    const { tag } = value;
    if (typeof tag?.id !== 'string' || !REQUEST_ID.test(tag.id) || typeof tag.key !== 'string' || !Array.isArray(tag.confirmed)) return undefined;
    if (!tag.confirmed.every((id) => typeof id === 'string' && REQUEST_ID.test(id))) return undefined;
    if (value.git !== undefined && value.git !== null && !isGitState(value.git)) return undefined;
    return value as WriteRequest;
  } catch {
    return undefined;
  }
}

function isGitState(value: unknown): value is GitState {
  if (typeof value !== 'object' || value === null) return false;
  const { head, branch, dirty } = value as Record<string, unknown>;
  const paths = Array.isArray(dirty) && dirty.every((path) => typeof path === 'string');
  return typeof head === 'string' && (branch === null || typeof branch === 'string') && paths;
}
