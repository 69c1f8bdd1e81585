import { rmSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { Store } from '../store/store.js';
import { fileSystemOf, storePaths } from '../store/file-access.js';
import { AnswerJournal } from './answer-journal.js';
import { runRead } from './forwarded-read.js';
import { claimSocket, identityOf } from './socket-claim.js';
import { runTagged } from './tagged-write.js';
import { FORWARDED_KEPT_MS, isWriteRequest, parseRequest, type WriteAnswer } from './wire.js';

/**
 * The server that writes for the others: it listens at the database's socket and runs
 * each forwarded call (a write, or a read of a server that holds no copy) as its
 * caller's session would, on its own store. Its store
 * still takes the cross-process lock for every write, so anyone not forwarding (the
 * CLI, the editor, a second writer that lost the race for the socket) stays correct.
 */
export class WriteServer {
  private readonly connections = new Set<Socket>();
  private readonly running = new Set<Promise<void>>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    private readonly path: string,
    /** The socket file this server made, to remove it on close only if it is still the same file. */
    private readonly identity: string | undefined,
    private readonly store: Store,
    private readonly serving: (others: boolean) => void,
  ) {
    server.on('connection', (socket) => this.serve(socket));
  }

  /**
   * Becomes the server writing for the others at `path`, unless another is there: then
   * `undefined`. The socket is made under a name of its own and then linked to `path`,
   * which fails if `path` exists, so two servers racing for it cannot both have it.
   * `serving` hears whether any other server is connected to it.
   */
  static async publish(path: string, store: Store, serving: (others: boolean) => void = () => {}): Promise<WriteServer | undefined> {
    const claimed = await claimSocket(path);
    if (!claimed) return undefined;
    if (claimed.identity !== undefined) AnswerJournal.removeOlderThan(storePaths(store.location).answers, FORWARDED_KEPT_MS, fileSystemOf(store));
    return new WriteServer(claimed.server, path, claimed.identity, store, serving);
  }

  /** Stops taking requests, answers those under way, then closes every connection. */
  async close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.removeSocketFile();
      while (this.running.size > 0) await Promise.all(this.running);
      for (const socket of this.connections) socket.destroy();
      AnswerJournal.of(storePaths(this.store.location).answers, fileSystemOf(this.store)).close();
      await closed;
    })();
    return this.closing;
  }

  private serve(socket: Socket): void {
    socket.unref();
    socket.setNoDelay(true);
    this.connections.add(socket);
    this.serving(true);
    socket.on('close', () => {
      this.connections.delete(socket);
      this.serving(this.connections.size > 0);
    });
    // A caller that goes away mid-write finds the outcome in the database, not here.
    socket.on('error', () => socket.destroy());
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('error', () => {});
    lines.on('line', (line) => {
      const request = parseRequest(line);
      if (!request) {
        socket.destroy();
        return;
      }
      const run = (isWriteRequest(request) ? runTagged(this.store, request) : runRead(this.store, request))
        .catch((error: unknown): WriteAnswer => ({ seq: request.seq, failure: error instanceof Error ? error.message : String(error) }))
        .then((answer) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(answer)}\n`);
        })
        .finally(() => this.running.delete(run));
      this.running.add(run);
    });
  }

  /** Another server may have taken the path since (see `WriteRoute`): only our own file goes. */
  private removeSocketFile(): void {
    if (this.identity !== undefined && identityOf(this.path) === this.identity) rmSync(this.path, { force: true });
  }
}
