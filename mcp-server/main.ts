import type { Readable, Writable } from 'node:stream';
import { loadConfig } from '../shared/config.js';
import { activityWriteMs } from '../shared/rules/renewal.js';
import { ActivityWriter } from './activity-writer.js';
import { resolveLocation } from '../shared/location.js';
import { DrainingTransport } from './draining-transport.js';
import { sessionIdentity } from './identity.js';
import { followWhileIdle } from './idle-follow.js';
import { untrackedLeaseWarning } from './lease-warning.js';
import { createServer } from './server.js';
import { sessionCore } from './session.js';
import { StdioLineTransport } from './stdio-transport.js';
import { sweepInterval } from './sweeper.js';

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
  /** Resolves once the server has shut down cleanly: requests answered, session ended, store closed. */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

/** The shape of a claim token (`bt_` and base64url, see shared/tokens.ts), for redaction. */
const TOKEN_LIKE = /bt_[A-Za-z0-9_-]+/g;

/** How long a shutdown waits for requests under way before closing anyway. */
const DRAIN_MS = 10_000;

/**
 * `baton serve`: the stdio MCP server of one session. Settings are checked before anything
 * starts (a bad one throws `SettingError`). The core is opened after `initialize`, when the
 * client's name is known; then the session is registered and the sweep starts. Stdin
 * closing, SIGINT and SIGTERM stop it cleanly, answering every request already read; its
 * leases live on until they expire or are taken over.
 */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const stdin = options.stdin ?? process.stdin;
  const stderr = options.stderr ?? process.stderr;
  // Never a token in a log line, whatever text carried one in (an error quoting a bad message, say).
  const log = (line: string) => void stderr.write(`${line.replace(TOKEN_LIKE, 'bt_[redacted]')}\n`);

  const location = resolveLocation({ cwd, db: options.db, env });
  const config = loadConfig({ repoRoot: location.repoRoot, env });
  if (!config.ok) throw new SettingError(config.error.message);
  const sweepMs = sweepInterval(env);
  if (!sweepMs.ok) throw new SettingError(sweepMs.message);

  // Standard output is the protocol: a stray console.log from anywhere must not corrupt it.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);

  const session = sessionCore({
    cwd,
    db: options.db,
    env,
    identity: sessionIdentity(env),
    clientName: () => server.server.getClientVersion()?.name,
    sweepMs: sweepMs.value,
    log,
  });
  // Every tool call is a sign of life; the store hears of it at most every few seconds (shared/rules/renewal.ts).
  const activity = new ActivityWriter({
    writeMs: activityWriteMs(config.value.idleSeconds),
    write: async () => {
      const marked = await (await session.core()).markActive();
      if (!marked.ok) throw new Error(marked.error.message);
    },
    log,
  });
  const { server, connect } = createServer({
    core: session.core,
    touched: untrackedLeaseWarning(config.value.leaseSeconds, log),
    active: (written) => activity.noted(written),
  });
  // Open the store as soon as the agent is known, so that the sweep runs before the first
  // call and the first call finds the database loaded (or the writer reached). Loading
  // yields between its steps, so the tool list asked for meanwhile is not held up long.
  server.server.oninitialized = () => {
    session.core().catch((error: unknown) => log(`baton: ${error instanceof Error ? error.message : String(error)}`));
  };
  const transport = new DrainingTransport(new StdioLineTransport(stdin, options.stdout ?? process.stdout));
  // The error's own message may quote the unreadable input, which may hold a token: name it only.
  transport.onerror = (error) => log(`baton: transport: ${error.name}; the message was not read`);
  transport.onidle = followWhileIdle(session);

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;
  const shutdown = async () => {
    await transport.drain(DRAIN_MS);
    await server.close().catch(() => {});
    await activity.close();
    await session.close();
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

  await connect(transport);
  return { stopped, stop };
}
