import { hostname } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../shared/config.js';
import { StoreUnavailableError } from '../shared/errors.js';
import { resolveLocation } from '../shared/location.js';
import { type Opened, openBaton } from '../shared/open.js';
import type { ServerDeps } from './deps.js';
import { agentName, sessionIdentity } from './identity.js';
import { untrackedLeaseWarning } from './lease-warning.js';
import { createServer } from './server.js';
import { type Sweeper, startSweeper, sweepInterval } from './sweeper.js';

export interface StartOptions {
  cwd?: string;
  /** Database path (`--db`); `BATON_DB` otherwise. */
  db?: string;
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
}

/** A setting out of range: `baton serve` prints the message as one line and exits with status 2. */
export class SettingError extends Error {
  override readonly name = 'SettingError';
}

export interface RunningServer {
  /** Resolves once the server has shut down cleanly: calls finished, session ended, store closed. */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

/** How long a shutdown waits for calls under way before closing anyway. */
const DRAIN_MS = 10_000;

/**
 * `baton serve`: the stdio MCP server of one session. Settings are checked before anything
 * starts (a bad one throws `SettingError`). The core is opened after `initialize`, when the
 * client's name is known; then the session is registered and the sweep starts. Stdin
 * closing, SIGINT and SIGTERM stop it cleanly; its leases live on until they expire.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const stdin = options.stdin ?? process.stdin;
  const stderr = options.stderr ?? process.stderr;
  const log = (line: string) => void stderr.write(`${line}\n`);

  const location = resolveLocation({ cwd, db: options.db, env });
  const config = loadConfig({ repoRoot: location.repoRoot, env });
  if (!config.ok) throw new SettingError(config.error.message);
  const sweepMs = sweepInterval(env);
  if (!sweepMs.ok) throw new SettingError(sweepMs.message);

  // Standard output is the protocol: a stray console.log from anywhere must not corrupt it.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

  const identity = sessionIdentity(env);
  const calls = new Set<Promise<unknown>>();
  let sweeper: Sweeper | undefined;
  let opening: Promise<Opened> | undefined;
  let server: McpServer | undefined;

  const open = async (): Promise<Opened> => {
    const clientName = server?.server.getClientVersion()?.name;
    const caller = { agent: agentName(identity, clientName), session: identity.session, renewer: identity.renewer };
    const result = await openBaton({ cwd, db: options.db, env, caller });
    if (!result.ok) {
      const { error } = result;
      if (error.code === 'STORE_UNAVAILABLE') throw new StoreUnavailableError(String(error.path), String(error.reason));
      throw new Error(error.message);
    }
    const { baton } = result.value;
    const registered = await baton.registerSession({ pid: process.pid, host: hostname() });
    if (!registered.ok) log(`baton: could not record this session: ${registered.error.message}`);
    sweeper = startSweeper({
      intervalMs: sweepMs.value,
      sweep: async (limit) => {
        const swept = await baton.sweep(limit);
        if (!swept.ok) throw new Error(swept.error.message);
        return swept.value.reclaimed.length;
      },
      onError: (error) => log(`baton: sweep failed: ${error instanceof Error ? error.message : String(error)}`),
    });
    return result.value;
  };

  const deps: ServerDeps = {
    core: async () => {
      // A store that cannot be opened now may open on the next call: do not keep the failure.
      opening ??= open().catch((error: unknown) => {
        opening = undefined;
        throw error;
      });
      return (await opening).baton;
    },
    touched: untrackedLeaseWarning(config.value.leaseSeconds, log),
    track: (call) => {
      calls.add(call);
      void call.finally(() => calls.delete(call)).catch(() => {});
      return call;
    },
  };
  server = createServer(deps);
  // Open the store as soon as the agent is known, so the sweep runs even before the first call.
  // setImmediate: a client that sends `initialized` without awaiting the `initialize` answer
  // gets both read in one chunk, and this notification can run before that request's handler.
  server.server.oninitialized = () => {
    setImmediate(() => {
      deps.core().catch((error: unknown) => log(`baton: ${error instanceof Error ? error.message : String(error)}`));
    });
  };

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;

  const shutdown = async () => {
    await sweeper?.stop();
    await Promise.race([
      Promise.allSettled([...calls]),
      new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref()),
    ]);
    await server.close().catch(() => {});
    const opened = await opening?.catch(() => undefined);
    // A second sweeper may have started if the store opened during shutdown.
    await sweeper?.stop();
    if (opened) {
      const ended = await opened.baton.endSession();
      if (!ended.ok) log(`baton: could not record the end of this session: ${ended.error.message}`);
      await opened.store.close();
    }
  };
  const stop = () => {
    stopping ??= shutdown()
      .catch((error: unknown) => log(`baton: shutdown: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolveStopped();
      });
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal while shutting down means "now".
    if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143);
    void stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  stdin.once('end', () => void stop());
  stdin.once('close', () => void stop());

  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  transport.onerror = (error) => log(`baton: transport: ${error.message}`);
  await server.connect(transport);
  return { stopped, stop };
}
