import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Baton } from '../../shared/baton.js';
import { CONFIG_FILE } from '../../shared/config.js';
import { resolveLocation } from '../../shared/location.js';
import { type Forwarding, openBaton, type Opened } from '../../shared/open.js';
import { batonError, StoreUnavailableError, type BatonError } from '../../shared/errors.js';
import { fail, ok, type Result } from '../../shared/result.js';
import { clockOffsetMs } from '../../shared/store/clock-offset.js';
import type { Disposable } from './emitter.js';
import { databaseFilesStamp, fileStamp } from './fileStamp.js';
import { type CheckpointsSeen, type IssueLists, readClaims, readLists } from './readSnapshot.js';
import type { ClaimsSource, ModelState } from './snapshot.js';

export interface BatonSourceOptions {
  /** The workspace folder; null when the window has none. */
  cwd: string | null;
  /** The `baton.databasePath` setting, when set. */
  db?: string;
  /** This window's renewer id, recorded on what it writes. */
  renewer: string;
  env?: NodeJS.ProcessEnv;
  /** The clock that ages the issue lists and a failing store (tests replace it). */
  now?: () => number;
}

/** A store that fails to open or to read is closed and opened again after this long, not at every poll. */
const RETRY_MS = 5000;
/**
 * While the store keeps changing, the issue lists are read again at most this often;
 * claims are read at every change. Reading every list is costly on a large database,
 * and with agents at work the store changes at every poll; read at most this often, the
 * lists still follow other processes within a second.
 */
const LISTS_MAX_AGE_MS = 750;
/**
 * A copy of the database this window opened while no writer ran is closed once a writer
 * has answered its calls this long, and stops being caught up. Its file's array goes to
 * the garbage collector; the WebAssembly memory SQLite grew into stays with the process
 * (sql.js keeps one instance per process, and such memory never shrinks), so the
 * extension host's RSS goes down by less than the copy took. Not at once: a writer that
 * comes and goes within moments does not make the window load the database again each time.
 */
const DROP_COPY_AFTER_MS = 30_000;

/** A store that could read its files just now, and the version it read. */
interface CheckedStore {
  opened: Opened;
  storeVersion: string;
}

/** The issue lists as last read, and the store version they were read at. */
interface ListsRead {
  value: IssueLists;
  /** Each list as JSON, to tell the next read of it from this one. */
  texts: Record<string, string>;
  storeVersion: string;
  at: number;
}

/**
 * The store as the view reads it. It opens the database only once it exists, so opening
 * a git repository that does not use Baton leaves no file behind; `baton()` opens (and
 * so creates) it for commands that write.
 */
export class BatonSource implements ClaimsSource, Disposable {
  private path: string | null = null;
  /** The repository's `.baton.json`, whose settings (the lease length) the opened Baton holds. */
  private configFile: string | null = null;
  /** How `configFile` looked when the store in force was opened. */
  private openedConfig: string | undefined;
  private opening: Promise<Result<Opened>> | undefined;
  /** Counts opens: a store opened again may hold other settings, so the view reloads. */
  private opens = 0;
  /** When the store in `opening` first failed to open or to read its files; undefined while it works. */
  private failedAt: number | undefined;
  private lists: ListsRead | undefined;
  /** Which unheld issues in progress had a checkpoint when last looked up (see `readLists`). */
  private readonly checkpoints: CheckpointsSeen = new Map();
  /** Whether anyone shows the issue lists (the Claims view is visible): while not, they are not kept current. */
  private listsShown = true;
  /** How far this machine's clock is ahead of the store's, as measured when the store in force was opened. */
  private offset = 0;
  /** Since when the calls of the store in force have gone to a writer without a break; undefined while none runs. */
  private writerSince: number | undefined;
  /** Where the calls of the store last opened go, once it opened. */
  private forwarding: Forwarding | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;

  constructor(private readonly options: BatonSourceOptions) {
    this.env = options.env ?? process.env;
    this.now = options.now ?? Date.now;
    this.retarget(options.db);
  }

  /** The store's clock as this machine reads it, for countdowns: PostgreSQL's leases follow the database clock. */
  storeNow(): number {
    return this.now() - this.offset;
  }

  /** The database file, or null without a workspace folder. */
  get dbPath(): string | null {
    return this.path;
  }

  /** The `baton.databasePath` setting in force, made absolute; servers this window starts use it too. */
  get dbOverride(): string | undefined {
    return this.options.db === undefined ? undefined : (this.path ?? undefined);
  }

  /** Points at another database (the setting changed); the next read opens it. */
  retarget(db: string | undefined): void {
    this.dispose();
    this.options.db = db;
    const location = this.options.cwd === null ? null : resolveLocation({ cwd: this.options.cwd, db, env: this.env });
    this.path = location?.dbPath ?? null;
    this.configFile = location?.repoRoot ? join(location.repoRoot, CONFIG_FILE) : null;
  }

  /**
   * Says whether the issue lists are shown. While they are not, a change of the store
   * reloads the claims only (the status bar and the renewer need them), and the lists
   * keep what they were until a full load: with agents at work that is most of the
   * view's CPU. A view coming back into sight asks for a full load.
   */
  showLists(shown: boolean): void {
    this.listsShown = shown;
  }

  /** Whether this window holds a copy of the database: not while a writer answers its calls, nor on PostgreSQL. */
  holdsCopy(): boolean {
    return this.forwarding?.holdsCopy() ?? false;
  }

  /** Whether there is anything to open: a database file, or a PostgreSQL URL. */
  exists(): boolean {
    return this.path !== null && (this.env.BATON_DATABASE_URL !== undefined || existsSync(this.path));
  }

  /** The Baton of this window, opening (and creating) the database if needed. */
  async baton(): Promise<Result<Baton>> {
    const store = await this.checked(true);
    return store.ok ? ok(store.value.opened.baton) : store;
  }

  /** The open Baton, or null while there is no database. */
  async existing(): Promise<Result<Baton> | null> {
    const store = await this.checked(false);
    if (store === null) return null;
    return store.ok ? ok(store.value.opened.baton) : store;
  }

  /**
   * The version of what `load` would show: the store's, marked once the issue lists
   * read earlier are behind it and due, so that a model reloads them even when the
   * store has stopped changing.
   */
  async version(): Promise<string> {
    if (this.path === null) return 'no-workspace';
    const store = await this.checked(false);
    if (store === null) return 'absent';
    if (!store.ok) return `error:${store.error.message}`;
    const { storeVersion } = store.value;
    const version = `v:${this.opens}:${storeVersion}`;
    return this.listsDue(storeVersion) ? `${version}:lists` : version;
  }

  /** Reads claims afresh, and the issue lists too when `full` or when they are due. */
  async load(options: { full?: boolean } = {}): Promise<ModelState> {
    const dbPath = this.path;
    if (dbPath === null) return { kind: 'noWorkspace' };
    const store = await this.checked(false);
    if (store === null) return { kind: 'noDatabase', dbPath };
    if (!store.ok) return { kind: 'error', error: store.error };
    // The version is read before the data: a commit in between leaves the lists marked as behind.
    const { opened, storeVersion } = store.value;
    const claims = await readClaims(opened.baton);
    if (!claims.ok) return { kind: 'error', error: claims.error };
    if (options.full || this.lists === undefined || this.listsDue(storeVersion)) {
      const at = this.now();
      const lists = await readLists(opened.baton, this.checkpoints);
      if (!lists.ok) return { kind: 'error', error: lists.error };
      this.lists = { ...sameAsBefore(lists.value, this.lists), storeVersion, at };
    }
    return { kind: 'ready', snapshot: { ...claims.value, ...this.lists.value }, dbPath };
  }

  dispose(): void {
    const opening = this.opening;
    this.opening = undefined;
    this.failedAt = undefined;
    this.writerSince = undefined;
    this.forwarding = undefined;
    this.lists = undefined;
    this.checkpoints.clear();
    void opening?.then((o) => (o.ok ? o.value.close() : undefined)).catch(() => undefined);
  }

  /**
   * The store, opened once and checked by reading its version, which every read and write
   * would do first anyway. A store that has failed for `RETRY_MS`, to open or since, is
   * closed and forgotten: the database may have been repaired, deleted or made anew (a
   * store still open on a deleted database's files refuses the new ones for good). Only
   * when `create` is set does a database that does not exist get opened, and so created.
   */
  private checked(create: true): Promise<Result<CheckedStore>>;
  private checked(create: boolean): Promise<Result<CheckedStore> | null>;
  private async checked(create: boolean): Promise<Result<CheckedStore> | null> {
    if (this.options.cwd === null) return fail('STORE_UNAVAILABLE', 'Open a folder to use Baton.', { reason: 'no workspace folder' });
    // The settings are read once per open: when `.baton.json` changes, the view, the renewer's
    // period and the lease length it renews to follow it only through a new open.
    const config = fileStamp(this.configFile);
    const failing = this.failedAt !== undefined && this.now() - this.failedAt > RETRY_MS;
    if (this.opening !== undefined && (failing || config !== this.openedConfig)) this.dispose();
    if (!create && this.opening === undefined && !this.exists()) return null;
    if (this.opening === undefined) {
      this.openedConfig = config;
      this.opens++;
      this.opening = openBaton({
        cwd: this.options.cwd,
        db: this.options.db,
        env: this.env,
        caller: { agent: 'vscode', renewer: this.options.renewer },
        // While a `baton serve` writes for the database, the window's reads and writes go to
        // it and the window holds no copy; with none, it uses its own, as a CLI command does.
        // It never becomes the writer itself: the writer runs every agent's calls, and in the
        // extension host they would take turns with every other extension and slow typing;
        // a window reloaded or closed would also cost every agent a failover. The renewer
        // needs no writer of its own: its renewals go wherever the other calls go.
        forward: 'client',
      }).then(async (opened) => {
        // Measured once per open; a store that cannot answer now fails its first read instead.
        if (opened.ok) this.offset = await clockOffsetMs(opened.value.store).catch(() => 0);
        return opened;
      });
    }
    const opening = this.opening;
    const opened = await opening;
    if (!opened.ok) return this.failed(opening, opened.error);
    try {
      const storeVersion = await this.versionOf(opened.value);
      if (this.opening === opening) this.failedAt = undefined;
      return ok({ opened: opened.value, storeVersion });
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      return this.failed(opening, batonError('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason }));
    }
  }

  /**
   * The store's version. While a writer answers this window's calls, it is told from the
   * database's files, so that a poll neither loads a copy nor sends the writer a request;
   * a copy opened before the writer came is dropped once the writer has lasted a while.
   * With no writer, the window's own copy catches up and answers, and so checks the files.
   */
  private async versionOf(opened: Opened): Promise<string> {
    const forwarding = opened.forwarding;
    this.forwarding = forwarding;
    if (forwarding === undefined || !(await forwarding.writerReached())) {
      this.writerSince = undefined;
      return opened.store.version();
    }
    this.writerSince ??= this.now();
    if (forwarding.holdsCopy() && this.now() - this.writerSince >= DROP_COPY_AFTER_MS) await forwarding.dropCopy();
    return `files:${databaseFilesStamp(opened.location.dbPath)}`;
  }

  /** Notes when the store in force began to fail, so that it is tried afresh `RETRY_MS` later, not at every poll. */
  private failed(opening: Promise<Result<Opened>>, error: BatonError): Result<never> {
    if (this.opening === opening) this.failedAt ??= this.now();
    return { ok: false, error };
  }

  /** Whether the lists are shown and were read at an older store version, long enough ago to read them again. */
  private listsDue(storeVersion: string): boolean {
    return (
      this.listsShown && this.lists !== undefined && this.lists.storeVersion !== storeVersion && this.now() - this.lists.at >= LISTS_MAX_AGE_MS
    );
  }
}


/**
 * The lists read, where one is as it was, the array read before: most changes of the
 * store while agents work touch leases only, and the view then builds and redraws none
 * of its issue rows (buildTree keeps them while the arrays are the same).
 */
function sameAsBefore(next: IssueLists, before: ListsRead | undefined): Pick<ListsRead, 'value' | 'texts'> {
  const value = { ...next } as Record<keyof IssueLists, unknown>;
  const texts: Record<string, string> = {};
  for (const name of Object.keys(next) as (keyof IssueLists)[]) {
    texts[name] = JSON.stringify(next[name]);
    if (before && texts[name] === before.texts[name]) value[name] = before.value[name];
  }
  return { value: value as IssueLists, texts };
}
