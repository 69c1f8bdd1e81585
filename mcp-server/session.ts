import { hostname } from 'node:os';
import type { Baton } from '../shared/baton.js';
import { StoreUnavailableError } from '../shared/errors.js';
import { type Followable, type Opened, openBaton } from '../shared/open.js';
import { isSessionAlive } from '../shared/sessions.js';
import { agentName, type SessionIdentity } from './identity.js';
import { type Retention, startRetention } from './retention.js';
import { type Sweeper, startSweeper } from './sweeper.js';

/**
 * The core of one server process, opened once the agent is known, with its sweep.
 * Following the log does nothing before the store is open, nor once the session has ended.
 */
export interface SessionCore extends Followable {
  /** The session's Baton; opens the store on first use. Throws `StoreUnavailableError` when it cannot. */
  core(): Promise<Baton>;
  /** Stops the sweep, records the end of the session and closes the store, for good. Leases stay. */
  close(): Promise<void>;
}

export function sessionCore(options: {
  cwd: string;
  db?: string;
  env: NodeJS.ProcessEnv;
  identity: SessionIdentity;
  /** The MCP client's name, once `initialize` has told it. */
  clientName: () => string | undefined;
  sweepMs: number;
  log: (line: string) => void;
}): SessionCore {
  const { identity, log } = options;
  let opening: Promise<Opened> | undefined;
  let opened: Opened | undefined;
  let sweeper: Sweeper | undefined;
  let retention: Retention | undefined;
  let closed = false;

  const open = async (): Promise<Opened> => {
    const caller = { agent: agentName(identity, options.clientName()), session: identity.session, renewer: identity.renewer };
    const result = await openBaton({ cwd: options.cwd, db: options.db, env: options.env, caller, forward: true });
    if (!result.ok) {
      const { error } = result;
      if (error.code === 'STORE_UNAVAILABLE') throw new StoreUnavailableError(String(error.path), String(error.reason));
      throw new Error(error.message);
    }
    const { baton } = result.value;
    const registered = await baton.registerSession({ pid: process.pid, host: hostname(), gone: await goneSessions(baton) });
    if (!registered.ok) log(`baton: could not record this session: ${registered.error.message}`);
    retention = startRetention(baton, log);
    sweeper = startSweeper({
      intervalMs: options.sweepMs,
      sweep: async (limit) => {
        const swept = await baton.sweep(limit);
        if (!swept.ok) throw new Error(swept.error.message);
        return swept.value.reclaimed.length;
      },
      onError: (error) => log(`baton: sweep failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    opened = result.value;
    return opened;
  };

  return {
    async core() {
      // Once closed, never again: a late caller would register a session nobody ends.
      if (closed) throw new Error('this session has ended');
      // A store that cannot be opened now may open on the next call: do not keep the failure.
      opening ??= open().catch((error: unknown) => {
        opening = undefined;
        throw error;
      });
      return (await opening).baton;
    },
    follow(on) {
      if (!closed) opened?.follow(on);
    },
    followable: () => !closed && (opened?.followable() ?? false),
    async close() {
      closed = true;
      // An opening under way sets `opened` when it succeeds.
      await opening?.catch(() => undefined);
      await sweeper?.stop();
      await retention?.stop();
      if (!opened) return;
      const ended = await opened.baton.endSession();
      if (!ended.ok) log(`baton: could not record the end of this session: ${ended.error.message}`);
      await opened.close();
    },
  };
}

/**
 * Sessions of this machine whose server died without ending (killed, or crashed): the
 * renewers already give up on them, and registering clears those holding no lease.
 */
async function goneSessions(baton: Baton): Promise<string[]> {
  const listed = await baton.listSessions();
  if (!listed.ok) return [];
  // Only a process on this machine can be found dead: one elsewhere counts as alive.
  return listed.value.sessions.filter((s) => !s.endedAt && !isSessionAlive(s)).map((s) => s.id);
}
