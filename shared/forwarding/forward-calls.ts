import { randomBytes, randomUUID } from 'node:crypto';
import type { Baton } from '../baton.js';
import { ok, type Result } from '../result.js';
import type { SessionTokens } from '../rules/leases.js';
import type { CallScope } from '../service-operations.js';
import type { Store } from '../store/store.js';
import type { LeaseNotice, LostLease } from '../types.js';
import { runRead } from './forwarded-read.js';
import { runTagged } from './tagged-write.js';
import {
  decodeResult,
  type ForwardedRequest,
  isReadOperation,
  isWriteOperation,
  isWriteRequest,
  type LostLeasesAsked,
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

  /** The lost-lease look-up of one tool call (`Baton.forCall`), asked by its first request. */
  interface CallLosses {
    asked: boolean;
    found?: LostLease[];
  }
  const ask = (call: CallLosses | undefined): LostLeasesAsked => {
    if (!call || call.asked) return {};
    call.asked = true;
    return { lostLeasesOf: [baton.caller.session] };
  };

  const write = async (op: WriteOperation, args: unknown[], call?: CallLosses): Promise<Result<unknown>> => {
    const link = await route.current();
    if (!link) return local(op, args);
    // randomUUID draws on a pool of entropy it refills now and then; randomBytes would
    // make a system call for every write (5 µs here, more on a loaded machine).
    const tag = { id: randomUUID().replaceAll('-', ''), key, confirmed };
    confirmed = [];
    const request: Omit<WriteRequest, 'seq'> = { op, args, caller: baton.caller, config: baton.config, tokens: tokens.entries(), tag, ...ask(call) };
    if (RECORDS_WORKTREE.has(op)) request.git = await baton.worktreeState();
    let answer: WriteAnswer | undefined;
    try {
      answer = await send(request, link);
    } finally {
      // Confirmations ride on a write that records; any other hands them on.
      if (answer && 'result' in answer && answer.recorded) confirmed.push(tag.id);
      else confirmed = [...tag.confirmed, ...confirmed];
    }
    return settle(op, answer, call);
  };

  const read = async (op: ReadOperation, args: unknown[], call?: CallLosses): Promise<Result<unknown>> => {
    const link = await route.current();
    if (!link) return local(op, args);
    return settle(op, await send({ op, args, caller: baton.caller, config: baton.config, tokens: tokens.entries(), ...ask(call) }, link), call);
  };

  const settle = (op: string, answer: WriteAnswer, call: CallLosses | undefined): Result<unknown> => {
    if ('failure' in answer) throw new Error(`the writing server failed: ${answer.failure}`);
    tokens.apply(answer.tokens);
    if (call && answer.lostLeases) call.found = answer.lostLeases;
    return decodeResult(op, answer.result);
  };

  const view = (call?: CallLosses): Baton =>
    new Proxy(baton, {
      get(target, name, receiver) {
        if (isWriteOperation(name)) return (...args: unknown[]) => write(name, args, call);
        if (isReadOperation(name)) return (...args: unknown[]) => read(name, args, call);
        if (name === 'forCall') return forCall;
        return Reflect.get(target, name, receiver);
      },
    });

  // The look-up rides with the call's first request to the writer; a call answered here
  // (this server writes, or reached none) or whose answer brought none asks on its own.
  const forCall = (): CallScope<Baton> => {
    const call: CallLosses = { asked: false };
    const core = view(call);
    const notices = async (): Promise<Result<{ notices: LeaseNotice[] }>> => {
      if (!call.found) return core.leaseNotices();
      return call.found.length === 0 ? ok({ notices: [] }) : core.tellLosses({ losses: call.found });
    };
    return { core, notices };
  };

  return view();
}
