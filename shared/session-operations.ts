import { systemRandom, type RandomSource } from './clock.js';
import type { BatonConfig } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { readGitState } from './git.js';
import type * as In from './inputs.js';
import { fail, ok, type Result } from './result.js';
import { findIssue, findIssueById, issueView } from './rules/issues.js';
import { authorize, type LeaseContext, SessionTokens } from './rules/leases.js';
import { recordRefusal } from './rules/refusals.js';
import type { IssueRow, LeaseRow } from './rules/rows.js';
import type { ReadOptions, Store, Tx } from './store/store.js';
import type * as T from './types.js';

export interface BatonDeps {
  store: Store;
  caller: T.Caller;
  config: BatonConfig;
  random?: RandomSource;
  /** Reads HEAD, branch and changed paths of a worktree for checkpoints. */
  git?: (worktree: string) => Promise<T.GitState | null>;
  /** The session's plain tokens, when someone else keeps them too (a forwarded write). */
  tokens?: SessionTokens;
}

/**
 * What every operation of one session stands on: who calls, with which settings, and
 * how it runs one transaction of the store. A store that cannot be reached answers
 * STORE_UNAVAILABLE rather than throwing; anything else thrown is a bug and is thrown on.
 */
export abstract class SessionOperations {
  readonly caller: T.Caller;
  readonly config: BatonConfig;
  protected readonly store: Store;
  protected readonly random: RandomSource;
  protected readonly git: (worktree: string) => Promise<T.GitState | null>;
  protected readonly tokens: SessionTokens;

  constructor(deps: BatonDeps) {
    this.store = deps.store;
    this.caller = deps.caller;
    this.config = deps.config;
    this.random = deps.random ?? systemRandom;
    this.git = deps.git ?? readGitState;
    this.tokens = deps.tokens ?? new SessionTokens();
  }

  /** HEAD, branch and changed paths of the caller's worktree, as a checkpoint records them; null outside git. */
  worktreeState(): Promise<T.GitState | null> {
    return this.caller.worktree ? this.git(this.caller.worktree) : Promise.resolve(null);
  }

  get leaseSeconds(): number {
    return this.config.leaseSeconds;
  }

  protected get ctx(): LeaseContext {
    return { caller: this.caller, leaseMs: this.config.leaseSeconds * 1000, random: this.random, tokens: this.tokens, maxReclaims: this.config.maxReclaims };
  }

  protected async write<R>(fn: (tx: Tx) => Promise<Result<R>>): Promise<Result<R>> {
    try {
      return await this.store.write(fn);
    } catch (error) {
      return unavailable(error);
    }
  }

  protected async read<R>(fn: (tx: Tx) => Promise<Result<R>>, options?: ReadOptions): Promise<Result<R>> {
    try {
      return await this.store.read(fn, options);
    } catch (error) {
      return unavailable(error);
    }
  }

  /**
   * Runs `fn` on the issue's row (locked) once the lease check passed. A late write of a
   * lease that ended (`CLAIM_LOST`) leaves one `refused` event in the activity log and
   * nothing else (`recordRefusal`): that transaction commits, answering the refusal.
   */
  protected async withLease<R>(operation: string, input: In.LeaseInput, fn: (tx: Tx, issue: IssueRow, lease: LeaseRow) => Promise<Result<R>>): Promise<Result<R>> {
    const outcome = await this.write<Result<R>>(async (tx) => {
      const found = await findIssue(tx, input.key, true);
      if (!found.ok) return found;
      const lease = await authorize(tx, found.value, input.claimToken, this.caller);
      if (!lease.ok) {
        if (lease.error.code !== 'CLAIM_LOST' || lease.error.reason === 'never issued') return lease;
        await recordRefusal(tx, found.value, input.claimToken, operation, this.caller, String(lease.error.reason));
        return ok(lease);
      }
      const done = await fn(tx, found.value, lease.value);
      return done.ok ? ok(done) : done;
    });
    return outcome.ok ? outcome.value : outcome;
  }

  protected async issueAnswer(tx: Tx, id: number): Promise<Result<{ issue: T.Issue }>> {
    return ok({ issue: await issueView(tx, await findIssueById(tx, id)) });
  }
}

function unavailable(error: unknown): Result<never> {
  if (error instanceof StoreUnavailableError) return fail('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason });
  throw error;
}
