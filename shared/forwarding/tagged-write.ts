import { Baton } from '../baton.js';
import type { Result } from '../result.js';
import { SessionTokens, type TokenChange } from '../rules/leases.js';
import { placeholders } from '../rules/rows.js';
import type { Store, Tx } from '../store/store.js';
import { fileSystemOf, isReadOnlySql, storePaths } from '../store/file-access.js';
import { AnswerJournal } from './answer-journal.js';
import { lostLeasesAsked } from './forwarded-read.js';
import { seal, unseal } from './seal.js';
import { FORWARDED_KEPT_MS, type RequestTag, UNRECORDED, type WriteAnswer, type WriteRequest } from './wire.js';

/**
 * How often a process looks for the records of writes whose callers never confirmed
 * them. They are kept `FORWARDED_KEPT_MS`, so a minute more does not matter, and
 * looking at every write cost the writer a statement each time.
 */
const SWEEP_EVERY_MS = 60_000;

/** When each store last looked for such records, as its transactions tell the time. */
const sweptAt = new WeakMap<Store, number>();

interface Sealed {
  result: Result<unknown>;
  tokens: TokenChange[];
}

/**
 * Runs a forwarded write on `store`, exactly once however many times it is run: by the
 * server that writes for its caller, or by the caller itself when that server went away
 * mid-call. Both run it the same way, so whichever commits first decides, and the other
 * answers what it recorded.
 */
export async function runTagged(store: Store, request: WriteRequest): Promise<WriteAnswer> {
  const changes: TokenChange[] = [];
  const tokens = new SessionTokens(request.tokens, changes);
  const outcome = { recorded: false };
  // The caller's server read its worktree (forward-writes.ts); one that did not leaves it to this one.
  const { git } = request;
  const baton = new Baton({
    store: UNRECORDED.has(request.op) ? store : taggedStore(store, request.tag, tokens, changes, outcome),
    caller: request.caller,
    config: request.config,
    tokens,
    git: git === undefined ? undefined : async () => git,
  });
  const operation = baton[request.op] as (...args: unknown[]) => Promise<Result<unknown>>;
  const result = await operation.apply(baton, request.args);
  return { seq: request.seq, result, tokens: changes, recorded: outcome.recorded, ...(await lostLeasesAsked(baton, request)) };
}

/**
 * The store as one forwarded write sees it. Its one transaction that writes first looks
 * for the request's record: found, the write already committed and its sealed answer is
 * answered again (and the tokens it changed changed again); not found, the write runs,
 * and if it commits, its record commits with it.
 *
 * The answer itself is kept beside the database, in the journal of the process that ran
 * the write, before the record commits: in the log every process would replay it, and
 * the log would reach the size that triggers compaction twice as soon. It needs no
 * flush to disk: only a caller that is still running ever asks for it, and a crash of
 * the machine ends those.
 */
function taggedStore(store: Store, tag: RequestTag, tokens: SessionTokens, changes: TokenChange[], outcome: { recorded: boolean }): Store {
  const key = Buffer.from(tag.key, 'base64');
  const answers = AnswerJournal.of(storePaths(store.location).answers, fileSystemOf(store));
  let wrote = false;
  return {
    backend: store.backend,
    location: store.location,
    read: (fn, options) => store.read(fn, options),
    version: () => store.version(),
    analyze: () => store.analyze(),
    compact: () => store.compact(),
    info: () => store.info(),
    // The store outlives the request.
    close: async () => {},
    async write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
      // One record answers for one transaction: every write operation of Baton has one.
      if (wrote) throw new Error('a forwarded operation may write once');
      wrote = true;
      let recorded = false;
      const answered = await store.write(async (tx) => {
        if (await tx.get('SELECT id FROM forwarded WHERE id = ?', [tag.id])) {
          recorded = true;
          const sealed = answers.read(tag.id);
          // Gone only once its caller confirmed it, or gave up on it long ago: nobody waits.
          if (sealed === undefined) throw new Error(`forwarded write ${tag.id} committed, and its answer is no longer kept`);
          const answer = unseal(key, sealed) as Sealed;
          tokens.apply(answer.tokens);
          return answer.result as Result<T>;
        }
        const before = changes.length;
        const counted = { changed: false };
        const result = await fn(changing(tx, counted));
        if (!result.ok || !counted.changed) {
          // A refusal or a write that changed nothing (a claim finding no work) leaves nothing
          // that could happen twice: run again, it answers anew, so no record grows the log.
          // The records its caller confirmed go with its next write that records; their
          // answers go now.
          answers.remove(tag.confirmed);
          return result;
        }
        const done = [...tag.confirmed, ...(await expired(store, tx))];
        if (done.length > 0) await tx.run(`DELETE FROM forwarded WHERE id IN (${placeholders(done.length)})`, done);
        await tx.run('INSERT INTO forwarded (id, at) VALUES (?, ?)', [tag.id, tx.now]);
        // Kept before the ones it replaces go, so the journal's file is not emptied between.
        answers.write(tag.id, seal(key, { result, tokens: changes.slice(before) } satisfies Sealed));
        answers.remove(done);
        recorded = true;
        return result;
      });
      // Only once committed: a write that failed took its record and its confirmations back.
      outcome.recorded = recorded;
      return answered;
    },
  };
}

/**
 * `tx`, noting whether any statement changed a row, in place of asking SQLite's
 * `total_changes()` before and after (two statements more for every write). A change
 * run through `all` or `get` (one with `RETURNING`) counts as one whatever it returned:
 * recording a write that changed nothing costs a row, leaving out one that did would
 * let it run twice.
 */
function changing(tx: Tx, counted: { changed: boolean }): Tx {
  return {
    now: tx.now,
    dialect: tx.dialect,
    all: async (sql, params) => {
      if (!isReadOnlySql(sql)) counted.changed = true;
      return tx.all(sql, params);
    },
    get: async (sql, params) => {
      if (!isReadOnlySql(sql)) counted.changed = true;
      return tx.get(sql, params);
    },
    run: async (sql, params) => {
      const ran = await tx.run(sql, params);
      if (ran.changes > 0) counted.changed = true;
      return ran;
    },
  };
}

/** Ids of records nobody confirmed within `FORWARDED_KEPT_MS`, when it is time to look for them. */
async function expired(store: Store, tx: Tx): Promise<string[]> {
  const last = sweptAt.get(store);
  if (last !== undefined && tx.now >= last && tx.now - last < SWEEP_EVERY_MS) return [];
  sweptAt.set(store, tx.now);
  const rows = await tx.all<{ id: string }>('SELECT id FROM forwarded WHERE at < ?', [tx.now - FORWARDED_KEPT_MS]);
  return rows.map((row) => row.id);
}
