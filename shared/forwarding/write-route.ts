import { rmSync } from 'node:fs';
import type { Store } from '../store/store.js';
import { inodeOf, WriteServer } from './write-server.js';
import { writerSocketFor } from './socket-path.js';
import { WriterLink } from './writer-link.js';

/** How long a forwarded write may go unanswered before its caller runs it itself. */
export const ANSWER_TIMEOUT_MS = 30_000;

export interface RouteOptions {
  /** How long a forwarded write may go unanswered (default `ANSWER_TIMEOUT_MS`). */
  answerTimeoutMs?: number;
  /** Told, while this server writes for the others, whether any of them is connected. */
  serving?: (others: boolean) => void;
}

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

  constructor(
    private readonly path: string | undefined,
    private readonly store: Store,
    options: RouteOptions = {},
  ) {
    this.answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
    this.serving = options.serving;
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
    await this.looking;
    this.link?.close();
    await this.writer?.close();
  }

  private async look(path: string): Promise<WriterLink | undefined> {
    // Three rounds at most: each either connects, becomes the writer, or clears a dead
    // writer's socket that another server may then take first.
    for (let round = 0; round < 3 && !this.closed; round++) {
      const seen = inodeOf(path);
      try {
        this.link = await WriterLink.connect(path, this.answerTimeoutMs);
        return this.link;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ECONNREFUSED') return undefined;
        // Refused: the file of a writer that died. Remove it, unless another server
        // has replaced it since.
        if (code === 'ECONNREFUSED' && seen !== undefined && inodeOf(path) === seen) rmSync(path, { force: true });
      }
      const writer = await WriteServer.publish(path, this.store, this.serving).catch(() => undefined);
      if (writer) {
        if (this.closed) await writer.close();
        else this.writer = writer;
        return undefined;
      }
    }
    return undefined;
  }
}
