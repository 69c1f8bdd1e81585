import { Baton } from '../baton.js';
import type { Result } from '../result.js';
import { SessionTokens, type TokenChange } from '../rules/leases.js';
import type { Store } from '../store/store.js';
import type { LostLease } from '../types.js';
import { encodeResult, type LostLeasesAsked, type ReadRequest, type WriteAnswer } from './wire.js';

/**
 * Runs a forwarded read on `store` as its caller's session would: with its identity,
 * its settings and its plain tokens. It leaves no record: a read sent again after its
 * writer died just runs again.
 */
export async function runRead(store: Store, request: ReadRequest): Promise<WriteAnswer> {
  const changes: TokenChange[] = [];
  const baton = new Baton({ store, caller: request.caller, config: request.config, tokens: new SessionTokens(request.tokens, changes) });
  const operation = baton[request.op] as (...args: unknown[]) => Promise<Result<unknown>>;
  const result = await operation.apply(baton, request.args);
  return { seq: request.seq, result: encodeResult(request.op, result), tokens: changes, recorded: false, ...(await lostLeasesAsked(baton, request)) };
}

/** The lost leases the request asked for with its operation, looked up once it has run; none when the look-up failed (its caller then asks again). */
export async function lostLeasesAsked(baton: Baton, request: LostLeasesAsked): Promise<{ lostLeases?: LostLease[] }> {
  if (request.lostLeasesOf === undefined) return {};
  const found = await baton.lostLeases({ sessions: request.lostLeasesOf });
  return found.ok ? { lostLeases: found.value } : {};
}
