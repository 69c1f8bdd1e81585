import { storePaths } from '../store/file-access.js';
import type { Store } from '../store/store.js';
import { identityOf, removeDeadSocket } from './socket-claim.js';
import type { Standby } from './standby.js';
import { WriteServer } from './write-server.js';
import { SOCKET_PATH_MAX, writerSocketFor } from './socket-path.js';
import { WriterLink } from './writer-link.js';

/** How long a forwarded write may go unanswered before its caller runs it itself. */
export const ANSWER_TIMEOUT_MS = 30_000;

export interface RouteOptions {
  /** How long a forwarded write may go unanswered (default `ANSWER_TIMEOUT_MS`). */
  answerTimeoutMs?: number;
  /** Told, while this server writes for the others, whether any of them is connected. */
  serving?: (others: boolean) => void;
  /** Whether this process may become the writer when none runs (default true); a short command may not. */
  publish?: boolean;
  /** This server's part in keeping one copy ready besides the writer's (see `Standby`). */
  standby?: Standby;
}

/**
 * How long a server whose writer died waits for the standby to take its place, before
 * it takes it itself: the standby has the database loaded, and another server would
 * first have to load it.
 */
const STANDBY_WAIT_MS = 2000;

/**
 * Where this server's writes go: to the server writing for every server of the
 * database, or, when this one is that server or none can be reached, into its own store.
 * The first server to find no writer becomes it; when it goes, the next write of each of
 * the others looks again, and one of them takes its place.
 */
export class WriteRoute {
  private writer: WriteServer | undefined;
  private link: WriterLink | undefined;
  private looking: Promise<WriterLink | undefined> | undefined;
  private closed = false;
  private readonly answerTimeoutMs: number;
  private readonly serving: ((others: boolean) => void) | undefined;
  private readonly publish: boolean;
  private readonly standby: Standby | undefined;

  constructor(
    private readonly path: string | undefined,
    private readonly store: Store,
    options: RouteOptions = {},
  ) {
    this.answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
    this.serving = options.serving;
    this.publish = options.publish ?? true;
    this.standby = options.standby;
  }

  /** Where the standby of the writer at `socket` listens, or undefined where that path would be too long. */
  static standbyFor(socket: string): string | undefined {
    const path = `${socket}-standby`;
    return process.platform === 'win32' || path.length + 24 <= SOCKET_PATH_MAX ? path : undefined;
  }

  /** The socket of the database at `snapshot`, or undefined where its path would be too long. */
  static socketFor(snapshot: string): string | undefined {
    return writerSocketFor(snapshot);
  }

  /** Whether this server writes for the others. */
  get writing(): boolean {
    return this.writer !== undefined;
  }

  /** The link to the server writing for this one; undefined when this one writes itself. */
  async current(): Promise<WriterLink | undefined> {
    if (this.closed || this.path === undefined || this.writer) return undefined;
    if (this.link?.usable) return this.link;
    this.looking ??= this.look(this.path).finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.standby?.close();
    await this.looking;
    this.link?.close();
    await this.writer?.close();
  }

  private async look(path: string): Promise<WriterLink | undefined> {
    // Three rounds at most: each either connects, becomes the writer, or clears a dead
    // writer's socket that another server may then take first.
    for (let round = 0; round < 3 && !this.closed; round++) {
      const seen = identityOf(path);
      try {
        return this.linked(await WriterLink.connect(path, this.answerTimeoutMs));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ECONNREFUSED') return undefined;
        // A process that may not take the writer's place leaves all to the next that may.
        if (!this.publish) return undefined;
        // Refused: the file of a writer that died. Remove it, unless another server
        // has replaced it since.
        if (code === 'ECONNREFUSED' && seen !== undefined) removeDeadSocket(path, seen);
        const taken = await this.standbyTakesOver(path);
        if (taken) return taken;
      }
      const writer = await WriteServer.publish(path, this.store, this.serving).catch(() => undefined);
      if (writer) {
        if (this.closed) await writer.close();
        else this.writer = writer;
        this.standby?.retire();
        return undefined;
      }
    }
    return undefined;
  }

  /**
   * Uses `link` from now on. The standby does not wait for a call of its own agent to
   * notice that the writer died: the others' calls wait for it to take the writer's
   * place, so it looks again the moment the connection drops.
   */
  private linked(link: WriterLink): WriterLink {
    this.link = link;
    this.standby?.watch();
    link.onLost(() => {
      if (!this.closed && this.standby?.standing) void this.current();
    });
    return link;
  }

  /** The link to the standby once it has taken the writer's place; undefined when this server is the standby, or there is none, or it did not come. */
  private async standbyTakesOver(path: string): Promise<WriterLink | undefined> {
    if (!this.standby || !(await this.standby.elsewhere())) return undefined;
    const deadline = Date.now() + STANDBY_WAIT_MS;
    while (!this.closed && Date.now() < deadline) {
      try {
        return this.linked(await WriterLink.connect(path, this.answerTimeoutMs));
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    return undefined;
  }
}
