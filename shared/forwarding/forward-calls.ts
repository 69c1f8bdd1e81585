import { randomBytes, randomUUID } from 'node:crypto';
import type { Baton } from '../baton.js';
import type { Result } from '../result.js';
import type { SessionTokens } from '../rules/leases.js';
import type { Store } from '../store/store.js';
import { runRead } from './forwarded-read.js';
import { runTagged } from './tagged-write.js';
import {
  decodeResult,
  type ForwardedRequest,
  isReadOperation,
  isWriteOperation,
  isWriteRequest,
  RECORDS_WORKTREE,
  type ReadOperation,
  type WriteAnswer,
  type WriteOperation,
  type UnsentRequest,
  type WriteRequest,
} from './wire.js';
import type { WriteRoute } from './write-route.js';
import { type WriterLink, WriterLostError } from './writer-link.js';

/**
 * How many writers a call is sent to, one after another as each goes away before
 * answering, before this server runs it itself. Each time the route looks again, and
 * either connects to the server that took the dead one's place or becomes it.
 */
const WRITERS_TRIED = 3;

/**
 * `baton` with its calls sent to the server writing for the database, whenever another
 * server is that writer: its writes, and its reads, so that this server needs no copy
 * of the database (`store` opens only when it is used). A call whose writer goes away
 * before answering is sent again under the same request id to whoever writes next, this
 * server included, which makes a write run once.
 */
export function forwardCalls(baton: Baton, deps: { tokens: SessionTokens; store: Store; route: WriteRoute }): Baton {
  const { tokens, store, route } = deps;
  // Sealing key of this server's requests; it leaves the process only towards the writer.
  const key = randomBytes(32).toString('base64');
  let confirmed: string[] = [];

  /** Sends `request` over `first`, to the next writer if that one goes away, and runs it here once this server is the writer. */
  const send = async (request: UnsentRequest, first: WriterLink): Promise<WriteAnswer> => {
    for (let tried = 0; ; tried++) {
      const link = tried === 0 ? first : tried < WRITERS_TRIED ? await route.current() : undefined;
      if (!link) {
        const here: ForwardedRequest = { ...request, seq: 0 };
        return isWriteRequest(here) ? runTagged(store, here) : runRead(store, here);
      }
      try {
        return await link.call(request);
      } catch (error) {
        if (!(error instanceof WriterLostError)) throw error;
      }
    }
  };

  const local = (op: string, args: unknown[]) => (baton[op as keyof Baton] as (...a: unknown[]) => Promise<Result<unknown>>).apply(baton, args);

  const write = async (op: WriteOperation, args: unknown[]): Promise<Result<unknown>> => {
    const link = await route.current();
    if (!link) return local(op, args);
    // randomUUID draws on a pool of entropy it refills now and then; randomBytes would
    // make a system call for every write (5 µs here, more on a loaded machine).
    const tag = { id: randomUUID().replaceAll('-', ''), key, confirmed };
    confirmed = [];
    const request: Omit<WriteRequest, 'seq'> = { op, args, caller: baton.caller, config: baton.config, tokens: tokens.entries(), tag };
    if (RECORDS_WORKTREE.has(op)) request.git = await baton.worktreeState();
    let answer: WriteAnswer | undefined;
    try {
      answer = await send(request, link);
    } finally {
      // Confirmations ride on a write that records; any other hands them on.
      if (answer && 'result' in answer && answer.recorded) confirmed.push(tag.id);
      else confirmed = [...tag.confirmed, ...confirmed];
    }
    return settle(op, answer);
  };

  const read = async (op: ReadOperation, args: unknown[]): Promise<Result<unknown>> => {
    const link = await route.current();
    if (!link) return local(op, args);
    return settle(op, await send({ op, args, caller: baton.caller, config: baton.config, tokens: tokens.entries() }, link));
  };

  const settle = (op: string, answer: WriteAnswer): Result<unknown> => {
    if ('failure' in answer) throw new Error(`the writing server failed: ${answer.failure}`);
    tokens.apply(answer.tokens);
    return decodeResult(op, answer.result);
  };

  return new Proxy(baton, {
    get(target, name, receiver) {
      if (isWriteOperation(name)) return (...args: unknown[]) => write(name, args);
      if (isReadOperation(name)) return (...args: unknown[]) => read(name, args);
      return Reflect.get(target, name, receiver);
    },
  });
}
