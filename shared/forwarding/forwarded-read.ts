import { Baton } from '../baton.js';
import type { Result } from '../result.js';
import { SessionTokens, type TokenChange } from '../rules/leases.js';
import type { Store } from '../store/store.js';
import { encodeResult, type ReadRequest, type WriteAnswer } from './wire.js';

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
  return { seq: request.seq, result: encodeResult(request.op, result), tokens: changes, recorded: false };
}
