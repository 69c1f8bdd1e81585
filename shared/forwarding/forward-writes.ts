import { randomBytes, randomUUID } from 'node:crypto';
import type { Baton } from '../baton.js';
import type { Result } from '../result.js';
import type { SessionTokens } from '../rules/leases.js';
import type { Store } from '../store/store.js';
import { runTagged } from './tagged-write.js';
import { isWriteOperation, RECORDS_WORKTREE, type WriteAnswer, type WriteOperation, type WriteRequest } from './wire.js';
import type { WriteRoute } from './write-route.js';
import { WriterLostError } from './writer-link.js';

/**
 * `baton` with its writes sent to the server writing for the database, whenever another
 * server is that writer; reads stay on this server's own copy. A write whose writer goes
 * away before answering runs here under the same request id, which makes it run once.
 */
export function forwardWrites(baton: Baton, deps: { tokens: SessionTokens; store: Store; route: WriteRoute }): Baton {
  const { tokens, store, route } = deps;
  // Sealing key of this server's requests; it leaves the process only towards the writer.
  const key = randomBytes(32).toString('base64');
  let confirmed: string[] = [];

  const forward = async (op: WriteOperation, args: unknown[]): Promise<Result<unknown>> => {
    const link = await route.current();
    const local = baton[op] as (...a: unknown[]) => Promise<Result<unknown>>;
    if (!link) return local.apply(baton, args);
    // randomUUID draws on a pool of entropy it refills now and then; randomBytes would
    // make a system call for every write, which a loaded machine makes dearer.
    const tag = { id: randomUUID().replaceAll('-', ''), key, confirmed };
    confirmed = [];
    const request: Omit<WriteRequest, 'seq'> = { op, args, caller: baton.caller, config: baton.config, tokens: tokens.entries(), tag };
    if (RECORDS_WORKTREE.has(op)) request.git = await baton.worktreeState();
    let answer: WriteAnswer | undefined;
    try {
      answer = await link.call(request).catch((error: unknown) => {
        if (!(error instanceof WriterLostError)) throw error;
        return runTagged(store, { ...request, seq: 0 });
      });
    } finally {
      // Confirmations ride on a write that records; any other hands them on.
      if (answer && 'result' in answer && answer.recorded) confirmed.push(tag.id);
      else confirmed = [...tag.confirmed, ...confirmed];
    }
    if ('failure' in answer) throw new Error(`the writing server failed: ${answer.failure}`);
    tokens.apply(answer.tokens);
    return answer.result;
  };

  return new Proxy(baton, {
    get(target, name, receiver) {
      if (isWriteOperation(name)) return (...args: unknown[]) => forward(name, args);
      return Reflect.get(target, name, receiver);
    },
  });
}
