import { existsSync } from 'node:fs';
import type { Baton } from '../../shared/baton.js';
import { resolveLocation } from '../../shared/location.js';
import { openBaton, type Opened } from '../../shared/open.js';
import { fail, ok, type Result } from '../../shared/result.js';
import type { IssueSummary } from '../../shared/types.js';
import type { Disposable } from './emitter.js';
import type { BatonSnapshot, ClaimsSource, ModelState } from './snapshot.js';

export interface BatonSourceOptions {
  /** The workspace folder; null when the window has none. */
  cwd: string | null;
  /** The `baton.databasePath` setting, when set. */
  db?: string;
  /** This window's renewer id, recorded on what it writes. */
  renewer: string;
  env?: NodeJS.ProcessEnv;
}

/** How many issues of each status the view reads; past that a list is cut. */
const LIST_LIMIT = 1000;
const DONE_LIMIT = 10;
/** Issues looked up one by one for their fence or checkpoint; more are shown without. */
const DETAIL_LIMIT = 100;
/** A store that failed to open is tried again after this long, not at every poll. */
const RETRY_MS = 5000;

/**
 * The store as the view reads it. It opens the database only once it exists, so opening
 * a git repository that does not use Baton leaves no file behind; `baton()` opens (and
 * so creates) it for commands that write.
 */
export class BatonSource implements ClaimsSource, Disposable {
  private path: string | null = null;
  private opening: Promise<Result<Opened>> | undefined;
  private failedAt = 0;
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: BatonSourceOptions) {
    this.env = options.env ?? process.env;
    this.retarget(options.db);
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
    this.failedAt = 0;
    this.options.db = db;
    this.path = this.options.cwd === null ? null : resolveLocation({ cwd: this.options.cwd, db, env: this.env }).dbPath;
  }

  /** Whether there is anything to open: a database file, or a PostgreSQL URL. */
  exists(): boolean {
    return this.path !== null && (this.env.BATON_DATABASE_URL !== undefined || existsSync(this.path));
  }

  /** Opens the store once; a failed open is tried again a few seconds later. */
  async open(): Promise<Result<Opened>> {
    if (this.options.cwd === null) return fail('STORE_UNAVAILABLE', 'Open a folder to use Baton.', { reason: 'no workspace folder' });
    if (this.opening === undefined || (this.failedAt > 0 && Date.now() - this.failedAt > RETRY_MS)) {
      this.failedAt = 0;
      const opening = openBaton({
        cwd: this.options.cwd,
        db: this.options.db,
        env: this.env,
        caller: { agent: 'vscode', renewer: this.options.renewer },
      });
      this.opening = opening;
      void opening.then((o) => {
        if (!o.ok && this.opening === opening) this.failedAt = Date.now();
      });
    }
    return this.opening;
  }

  /** The Baton of this window, opening (and creating) the database if needed. */
  async baton(): Promise<Result<Baton>> {
    const opened = await this.open();
    return opened.ok ? ok(opened.value.baton) : opened;
  }

  /** The open Baton, or null while there is no database. */
  async existing(): Promise<Result<Baton> | null> {
    if (this.opening === undefined && !this.exists()) return null;
    return this.baton();
  }

  async version(): Promise<string> {
    if (this.path === null) return 'no-workspace';
    if (this.opening === undefined && !this.exists()) return 'absent';
    const opened = await this.open();
    return opened.ok ? `v:${await opened.value.store.version()}` : `error:${opened.error.message}`;
  }

  async load(): Promise<ModelState> {
    const dbPath = this.path;
    if (dbPath === null) return { kind: 'noWorkspace' };
    const baton = await this.existing();
    if (baton === null) return { kind: 'noDatabase', dbPath };
    if (!baton.ok) return { kind: 'error', error: baton.error };
    const snapshot = await readSnapshot(baton.value);
    return snapshot.ok ? { kind: 'ready', snapshot: snapshot.value, dbPath } : { kind: 'error', error: snapshot.error };
  }

  dispose(): void {
    const opening = this.opening;
    this.opening = undefined;
    void opening?.then((o) => (o.ok ? o.value.store.close() : undefined)).catch(() => undefined);
  }
}

/** Reads everything the view shows. Each list is one read of the store. */
export async function readSnapshot(baton: Baton): Promise<Result<BatonSnapshot>> {
  const [claims, sessions, ready, todo, doing, review, done] = await Promise.all([
    baton.listClaims(),
    baton.listSessions(),
    baton.readyQueue({ limit: LIST_LIMIT }),
    baton.listIssues({ status: 'todo', limit: LIST_LIMIT }),
    baton.listIssues({ status: 'doing', limit: LIST_LIMIT }),
    baton.listIssues({ status: 'review', limit: LIST_LIMIT }),
    baton.listIssues({ status: 'done', limit: LIST_LIMIT }),
  ]);
  if (!claims.ok) return claims;
  if (!sessions.ok) return sessions;
  if (!ready.ok) return ready;
  if (!todo.ok) return todo;
  if (!doing.ok) return doing;
  if (!review.ok) return review;
  if (!done.ok) return done;

  const fences: Record<string, number> = {};
  const checkpointed: string[] = [];
  const unheld = doing.value.issues.filter((i) => !i.held);
  const details = await Promise.all([
    ...claims.value.claims.slice(0, DETAIL_LIMIT).map(async (c) => ({ key: c.key, claimed: true, detail: await baton.getIssue({ key: c.key }) })),
    ...unheld.slice(0, DETAIL_LIMIT).map(async (i: IssueSummary) => ({ key: i.key, claimed: false, detail: await baton.getIssue({ key: i.key }) })),
  ]);
  for (const { key, claimed, detail } of details) {
    if (!detail.ok) continue; // gone between the two reads: the next reload shows it right
    if (claimed && detail.value.lease) fences[key] = detail.value.lease.fence;
    if (!claimed && detail.value.checkpoint) checkpointed.push(key);
  }
  return ok({
    leaseSeconds: baton.leaseSeconds,
    claims: claims.value.claims,
    fences,
    sessions: sessions.value.sessions,
    ready: ready.value.issues,
    todo: todo.value.issues,
    doing: doing.value.issues,
    review: review.value.issues,
    // Lists come newest created first; the view wants the latest finished.
    done: [...done.value.issues].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).slice(0, DONE_LIMIT),
    checkpointed,
  });
}
