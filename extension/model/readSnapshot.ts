import type { Baton } from '../../shared/baton.js';
import { ok, type Result } from '../../shared/result.js';
import type { IssueSummary } from '../../shared/types.js';
import { readBlocked } from './readBlocked.js';
import type { BatonSnapshot, CutList } from './snapshot.js';

/**
 * How many issues of each status the view reads; past that a list is cut, and its group
 * says so. More rows than this are not read by a person, and every read of a list,
 * through the writer, costs the window in proportion to its length.
 */
export const LIST_LIMIT = 200;
/** Done issues shown: those finished last. */
const DONE_LIMIT = 10;
/** Unheld issues in progress looked up one by one for a checkpoint to resume from; more are shown without. */
const DETAIL_LIMIT = 100;

/** What the view shows of the claims: read at every change. */
export type ClaimsPart = Pick<BatonSnapshot, 'leaseSeconds' | 'idleSeconds' | 'claims' | 'fences' | 'sessions'>;
/** The issue lists of the view: read at most every `LISTS_MAX_AGE_MS` while the store changes. */
export type IssueLists = Omit<BatonSnapshot, keyof ClaimsPart>;

/** The live claims with their fences, and the sessions that tell whose holder still runs. */
export async function readClaims(baton: Baton): Promise<Result<ClaimsPart>> {
  const [claims, fences, sessions] = await Promise.all([baton.listClaims(), baton.liveFences(), baton.listSessions()]);
  if (!claims.ok) return claims;
  if (!fences.ok) return fences;
  if (!sessions.ok) return sessions;
  // A claim taken or ended between the reads shows right at the next reload.
  return ok({ leaseSeconds: baton.leaseSeconds, idleSeconds: baton.config.idleSeconds, claims: claims.value.claims, fences: fences.value, sessions: sessions.value.sessions });
}

/**
 * Whether an issue had a checkpoint, as last looked up, by key: a checkpoint touches its
 * issue, so while `updatedAt` is the same the answer is too. Kept by the caller between reads.
 */
export type CheckpointsSeen = Map<string, { updatedAt: string; checkpointed: boolean }>;

/**
 * The issue lists, and which unheld issues in progress have a checkpoint to resume from.
 * Only issues changed since `seen` are looked up again: one request each to the writer.
 */
export async function readLists(baton: Baton, seen: CheckpointsSeen = new Map()): Promise<Result<IssueLists>> {
  const [ready, notReady, doing, review, done, stuck] = await Promise.all([
    // One more than shown, to know whether there are more.
    baton.readyQueue({ limit: LIST_LIMIT + 1 }),
    baton.listIssues({ status: 'todo', ready: false, limit: LIST_LIMIT }),
    baton.listIssues({ status: 'doing', limit: LIST_LIMIT }),
    baton.listIssues({ status: 'review', limit: LIST_LIMIT }),
    baton.recentlyDone({ limit: DONE_LIMIT }),
    baton.listIssues({ status: 'stuck', limit: LIST_LIMIT }),
  ]);
  if (!ready.ok) return ready;
  if (!notReady.ok) return notReady;
  if (!doing.ok) return doing;
  if (!review.ok) return review;
  if (!done.ok) return done;
  if (!stuck.ok) return stuck;
  const blocked = await readBlocked(baton, notReady.value.issues, [...ready.value.issues, ...doing.value.issues, ...review.value.issues]);
  if (!blocked.ok) return blocked;
  const unheld = doing.value.issues.filter((i) => !i.held).slice(0, DETAIL_LIMIT);
  const lookUp = async (i: IssueSummary) => {
    const known = seen.get(i.key);
    if (known?.updatedAt === i.updatedAt) return known.checkpointed;
    const detail = await baton.getIssue({ key: i.key });
    const checkpointed = detail.ok && detail.value.checkpoint !== null;
    if (detail.ok) seen.set(i.key, { updatedAt: i.updatedAt, checkpointed });
    return checkpointed;
  };
  const checkpointed = await Promise.all(unheld.map(lookUp));
  // Issues no longer unheld in progress are forgotten: their next look-up is afresh.
  const shown = new Set(unheld.map((i) => i.key));
  for (const key of seen.keys()) if (!shown.has(key)) seen.delete(key);
  const cut: CutList[] = [];
  if (ready.value.issues.length > LIST_LIMIT) cut.push('ready');
  for (const [name, list] of [['doing', doing], ['review', review], ['stuck', stuck], ['blocked', notReady]] as const) if (list.value.nextCursor !== null) cut.push(name);
  return ok({
    ready: ready.value.issues.slice(0, LIST_LIMIT),
    doing: doing.value.issues,
    review: review.value.issues,
    blocked: blocked.value,
    done: done.value.issues,
    stuck: stuck.value.issues,
    checkpointed: unheld.filter((_, i) => checkpointed[i]).map((i) => i.key),
    cut,
  });
}
