import { createConnection, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import type { UnsentRequest, WriteAnswer } from './wire.js';

/** The server writing for this one went away, or stopped answering, before it answered. */
export class WriterLostError extends Error {}

interface Pending {
  resolve: (answer: WriteAnswer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A connection to the server that writes for this one: requests go out as lines of
 * JSON and come back in any order, matched by `seq`. Once the connection fails, every
 * call still waiting, and every later one, fails with `WriterLostError`.
 */
export class WriterLink {
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private lost: WriterLostError | undefined;
  private readonly lostListeners: (() => void)[] = [];

  private constructor(
    private readonly socket: Socket,
    private readonly answerTimeoutMs: number,
  ) {
    socket.setNoDelay(true);
    // The connection never keeps a process alive: its agent's stdio does.
    socket.unref();
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('line', (line) => this.answered(line));
    // readline passes the socket's errors on; the socket's own listener below handles them.
    lines.on('error', () => {});
    socket.on('error', (error) => this.lose(`the writing server's connection failed: ${error.message}`));
    socket.on('close', () => this.lose('the writing server closed the connection'));
  }

  /** Connects to the server listening at `path`; rejects when none does. */
  static connect(path: string, answerTimeoutMs: number): Promise<WriterLink> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(path);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new WriterLink(socket, answerTimeoutMs));
      });
    });
  }

  get usable(): boolean {
    return this.lost === undefined;
  }

  /** Calls `listener` once, as soon as the connection is lost (at once if it already is). */
  onLost(listener: () => void): void {
    if (this.lost) queueMicrotask(listener);
    else this.lostListeners.push(listener);
  }

  call(request: UnsentRequest): Promise<WriteAnswer> {
    if (this.lost) return Promise.reject(this.lost);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.lose(`the writing server did not answer within ${this.answerTimeoutMs / 1000}s`), this.answerTimeoutMs);
      this.pending.set(seq, { resolve, reject, timer });
      this.socket.write(`${JSON.stringify({ ...request, seq })}\n`);
    });
  }

  close(): void {
    this.lose('this server closed the connection');
  }

  private answered(line: string): void {
    let answer: WriteAnswer;
    try {
      answer = JSON.parse(line) as WriteAnswer;
    } catch {
      this.lose('the writing server sent a line that is not JSON');
      return;
    }
    const waiting = this.pending.get(answer.seq);
    if (!waiting) return;
    this.pending.delete(answer.seq);
    clearTimeout(waiting.timer);
    waiting.resolve(answer);
  }

  private lose(why: string): void {
    const first = !this.lost;
    if (!this.lost) this.lost = new WriterLostError(why);
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(this.lost);
    }
    this.pending.clear();
    this.socket.destroy();
    if (first) for (const listener of this.lostListeners.splice(0)) listener();
  }
}
