import { systemRandom, type Clock } from './clock.js';
import { Baton } from './baton.js';
import { type BatonConfig, loadConfig } from './config.js';
import { StoreUnavailableError } from './errors.js';
import { type Location, resolveLocation } from './location.js';
import { forwardCalls } from './forwarding/forward-calls.js';
import { Standby } from './forwarding/standby.js';
import { WriteRoute } from './forwarding/write-route.js';
import { fail, ok, type Result } from './result.js';
import { SessionTokens } from './rules/leases.js';
import { FileStore, LazyFileStore, openFileStore } from './store/file-access.js';
import type { Store } from './store/store.js';
import { mintSessionId } from './tokens.js';
import type { Caller } from './types.js';

export interface OpenOptions {
  cwd: string;
  /** Database path (`--db`); `BATON_DB` otherwise. */
  db?: string;
  env?: NodeJS.ProcessEnv;
  caller?: Partial<Caller>;
  /** Where the database is, when the caller has already looked (a hook, which must not create one). */
  location?: Location;
  /** The file store's clock; PostgreSQL always uses the database clock. */
  clock?: Clock;
  /**
   * Whether this process joins the database's other servers in letting one of them
   * hold the database for all (shared/forwarding): `true` for `baton serve`, which lives
   * as long as its agent and may become that writer; `'client'` for a short command,
   * whose calls go to the writer while one runs and which otherwise uses its own copy.
   */
  forward?: boolean | 'client';
}

/** A process's copy of the database kept current while the process is between calls. */
export interface Followable {
  /**
   * Whether the process is between calls: a file store read lately then keeps its copy
   * current as others write (`FileStore.follow`). PostgreSQL has no copy to keep.
   */
  follow(on: boolean): void;
  /** Whether `follow(true)` would follow now. */
  followable(): boolean;
}

/** Where the calls of a process opened with `forward` go, and its own copy of the database. */
export interface Forwarding {
  /** Whether another process writes for the database and this one's calls go to it (it looks for one if need be). */
  writerReached(): Promise<boolean>;
  /** Whether this process holds its own copy: it opened the file, having run calls while no writer ran. */
  holdsCopy(): boolean;
  /** Closes that copy, when no call runs on it, so that its memory goes back; a later call without a writer opens it again. */
  dropCopy(): Promise<boolean>;
}

export interface Opened extends Followable {
  baton: Baton;
  store: Store;
  location: Location;
  config: BatonConfig;
  /** Set when the calls go to the writer while one runs (`forward`, file store only). */
  forwarding?: Forwarding;
  /** Stops writing for others or through them, then closes the store. */
  close(): Promise<void>;
}

/**
 * Opens Baton for one process: finds the database (docs/protocol.md section 1), reads the
 * settings, opens the store (PostgreSQL when `BATON_DATABASE_URL` is set, else the file)
 * and builds the session's identity.
 */
export async function openBaton(options: OpenOptions): Promise<Result<Opened>> {
  const env = options.env ?? process.env;
  const location = options.location ?? resolveLocation({ cwd: options.cwd, db: options.db, env });
  const config = loadConfig({ repoRoot: location.repoRoot, env });
  if (!config.ok) return config;
  const caller: Caller = {
    agent: options.caller?.agent ?? env.BATON_AGENT ?? 'agent',
    session: options.caller?.session ?? mintSessionId(systemRandom),
    renewer: options.caller?.renewer !== undefined ? options.caller.renewer : (env.BATON_RENEWER ?? null),
    worktree: options.caller?.worktree !== undefined ? options.caller.worktree : location.worktree,
  };
  const tokens = new SessionTokens();
  const shared = { location, config: config.value };
  const unavailable = (error: unknown) => {
    if (error instanceof StoreUnavailableError) return fail('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason });
    throw error;
  };

  if (options.forward && !env.BATON_DATABASE_URL) {
    const lazy = new LazyFileStore({ path: location.dbPath, clock: options.clock });
    const baton = new Baton({ store: lazy, caller, config: config.value, tokens });
    const joined = joinWriters(baton, tokens, lazy, lazy, { publish: options.forward === true });
    try {
      // Another server writing already: this one holds nothing. Else this one writes,
      // or works alone, and opens the file now so that a bad one is refused here.
      if (!joined || !(await joined.route.current())) await lazy.open();
    } catch (error) {
      await joined?.route.close();
      await lazy.close();
      return unavailable(error);
    }
    return ok({
      ...shared,
      store: lazy,
      baton: joined?.baton ?? baton,
      follow: (on: boolean) => lazy.opened?.follow(on),
      followable: () => lazy.opened?.followable ?? false,
      forwarding: {
        writerReached: async () => (await joined?.route.current()) !== undefined,
        holdsCopy: () => lazy.opened !== undefined,
        dropCopy: () => lazy.drop(),
      },
      close: async () => {
        await joined?.route.close();
        await lazy.close();
      },
    });
  }

  let store: Store;
  try {
    store = env.BATON_DATABASE_URL
      ? await (await import('./store/postgres/index.js')).openPostgresStore({ url: env.BATON_DATABASE_URL })
      : await openFileStore({ path: location.dbPath, clock: options.clock });
  } catch (error) {
    return unavailable(error);
  }
  const file = store instanceof FileStore ? store : undefined;
  return ok({
    ...shared,
    store,
    baton: new Baton({ store, caller, config: config.value, tokens }),
    follow: (on: boolean) => file?.follow(on),
    followable: () => file?.followable ?? false,
    close: () => store.close(),
  });
}

/**
 * `baton` as one of the long-lived processes of its database, which let one of them
 * hold it for all (shared/forwarding): its calls go to that process, or run here while
 * this one is it or none can be reached. Here they run on `store`, which is `fileStore`
 * or wraps it. Undefined where the database's socket path would be too long.
 */
export function joinWriters(
  baton: Baton,
  tokens: SessionTokens,
  fileStore: Store & Pick<FileStore, 'setOthersWriteHere'>,
  store: Store = fileStore,
  options: { publish?: boolean } = {},
): { baton: Baton; route: WriteRoute } | undefined {
  const socket = WriteRoute.socketFor(fileStore.location);
  if (socket === undefined) return undefined;
  const publish = options.publish ?? true;
  const standbyPath = WriteRoute.standbyFor(socket);
  // Only a process that may become the writer may stand by for it.
  const standby = publish && standbyPath !== undefined ? new Standby(standbyPath, fileStore) : undefined;
  const route = new WriteRoute(socket, store, { serving: (others) => fileStore.setOthersWriteHere(others), publish, standby });
  return { baton: forwardCalls(baton, { tokens, store, route }), route };
}
