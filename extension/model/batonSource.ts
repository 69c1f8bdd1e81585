import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Baton } from '../../shared/baton.js';
import { CONFIG_FILE } from '../../shared/config.js';
import { resolveLocation } from '../../shared/location.js';
import { openBaton, type Opened } from '../../shared/open.js';
import { batonError, StoreUnavailableError, type BatonError } from '../../shared/errors.js';
import { fail, ok, type Result } from '../../shared/result.js';
import { clockOffsetMs } from '../../shared/store/clock-offset.js';
import type { IssueSummary } from '../../shared/types.js';
import type { Disposable } from './emitter.js';
import { readBlocked } from './readBlocked.js';
import type { BatonSnapshot, ClaimsSource, ModelState } from './snapshot.js';

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

/** How many issues of each status the view reads; past that a list is cut (Blocked never is). */
const LIST_LIMIT = 1000;
/** Done issues shown: those finished last. */
const DONE_LIMIT = 10;
/** Unheld issues in progress looked up one by one for a checkpoint to resume from; more are shown without. */
const DETAIL_LIMIT = 100;
/** A store that fails to open or to read is closed and opened again after this long, not at every poll. */
const RETRY_MS = 5000;
/**
 * While the store keeps changing, the issue lists are read again at most this often;
 * claims are read at every change. Reading every list is costly on a large database,
 * and with agents at work the store changes at every poll; read at most this often, the
 * lists still follow other processes within a second.
 */
const LISTS_MAX_AGE_MS = 750;

/** A store that could read its files just now, and the version it read. */
interface CheckedStore {
  opened: Opened;
  storeVersion: string;
}

/** The issue lists as last read, and the store version they were read at. */
interface ListsRead {
  value: IssueLists;
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
  /** Whether anyone shows the issue lists (the Claims view is visible): while not, they are not kept current. */
  private listsShown = true;
  /** How far this machine's clock is ahead of the store's, as measured when the store in force was opened. */
  private offset = 0;
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
      const lists = await readLists(opened.baton);
      if (!lists.ok) return { kind: 'error', error: lists.error };
      this.lists = { value: lists.value, storeVersion, at };
    }
    return { kind: 'ready', snapshot: { ...claims.value, ...this.lists.value }, dbPath };
  }

  dispose(): void {
    const opening = this.opening;
    this.opening = undefined;
    this.failedAt = undefined;
    this.lists = undefined;
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
    const config = stamp(this.configFile);
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
      const storeVersion = await opened.value.store.version();
      if (this.opening === opening) this.failedAt = undefined;
      return ok({ opened: opened.value, storeVersion });
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      return this.failed(opening, batonError('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason }));
    }
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

/** What tells one version of a file from another (cheaply, at every poll), or 'none'. */
function stamp(file: string | null): string {
  const stat = file === null ? undefined : statSync(file, { throwIfNoEntry: false });
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : 'none';
}

/** What the view shows of the claims: read at every change. */
type ClaimsPart = Pick<BatonSnapshot, 'leaseSeconds' | 'idleSeconds' | 'claims' | 'fences' | 'sessions'>;
/** The issue lists of the view: read at most every `LISTS_MAX_AGE_MS` while the store changes. */
type IssueLists = Omit<BatonSnapshot, keyof ClaimsPart>;

/** The live claims with their fences, and the sessions that tell whose holder still runs. */
async function readClaims(baton: Baton): Promise<Result<ClaimsPart>> {
  const [claims, fences, sessions] = await Promise.all([baton.listClaims(), baton.liveFences(), baton.listSessions()]);
  if (!claims.ok) return claims;
  if (!fences.ok) return fences;
  if (!sessions.ok) return sessions;
  // A claim taken or ended between the reads shows right at the next reload.
  return ok({ leaseSeconds: baton.leaseSeconds, idleSeconds: baton.config.idleSeconds, claims: claims.value.claims, fences: fences.value, sessions: sessions.value.sessions });
}

/** The issue lists, and which unheld issues in progress have a checkpoint to resume from. */
async function readLists(baton: Baton): Promise<Result<IssueLists>> {
  const [ready, todo, doing, review, done, stuck] = await Promise.all([
    baton.readyQueue({ limit: LIST_LIMIT }),
    baton.listIssues({ status: 'todo', limit: LIST_LIMIT }),
    baton.listIssues({ status: 'doing', limit: LIST_LIMIT }),
    baton.listIssues({ status: 'review', limit: LIST_LIMIT }),
    baton.recentlyDone({ limit: DONE_LIMIT }),
    baton.listIssues({ status: 'stuck', limit: LIST_LIMIT }),
  ]);
  if (!ready.ok) return ready;
  if (!todo.ok) return todo;
  if (!doing.ok) return doing;
  if (!review.ok) return review;
  if (!done.ok) return done;
  if (!stuck.ok) return stuck;
  const blocked = await readBlocked(baton, { todo: todo.value, doing: doing.value, review: review.value });
  if (!blocked.ok) return blocked;
  const unheld = doing.value.issues.filter((i) => !i.held).slice(0, DETAIL_LIMIT);
  const details = await Promise.all(unheld.map(async (i: IssueSummary) => ({ key: i.key, detail: await baton.getIssue({ key: i.key }) })));
  return ok({
    ready: ready.value.issues,
    todo: todo.value.issues,
    doing: doing.value.issues,
    review: review.value.issues,
    blocked: blocked.value,
    done: done.value.issues,
    stuck: stuck.value.issues,
    checkpointed: details.filter(({ detail }) => detail.ok && detail.value.checkpoint).map(({ key }) => key),
  });
}
