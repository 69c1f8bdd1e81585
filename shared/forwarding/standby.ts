import { rmSync } from 'node:fs';
import { createConnection, type Server } from 'node:net';
import type { Store } from '../store/store.js';
import { claimSocket, identityOf, removeDeadSocket } from './socket-claim.js';

/** How often the standby brings its copy up to date with what the writer committed. */
const CATCH_UP_MS = 2000;
/** How often a server served by a writer looks for a standby, so that one that exited is replaced. */
const LOOK_MS = 10_000;
/**
 * How long after reaching a writer a server first offers to stand by. It reaches one in
 * the middle of a call, and a standby loads the database: the call is answered first.
 */
const FIRST_LOOK_MS = 1000;

/**
 * One server besides the writer keeps a copy of the database, current to within
 * `CATCH_UP_MS`, so that when the writer dies the calls waiting on it are answered by a
 * server that need not start SQLite and load the database first: the standby takes the
 * writer's place first, and the others wait for it (`WriteRoute`). The others hold no
 * copy. Whoever listens at the standby's socket is the standby; a server that finds
 * none when it connects to a writer becomes it.
 */
export class Standby {
  private beacon: { server: Server; identity: string | undefined } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private looking: NodeJS.Timeout | undefined;
  private claiming: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly store: Store,
  ) {}

  /** Whether this server is the standby. */
  get standing(): boolean {
    return this.beacon !== undefined;
  }

  /** Becomes the standby unless another server is; never throws (a server without a standby only takes longer to replace its writer). */
  claim(): Promise<void> {
    this.claiming ??= this.tryClaim()
      .catch(() => this.release())
      .finally(() => {
        this.claiming = undefined;
      });
    return this.claiming;
  }

  /**
   * Claims soon, and again every `LOOK_MS` while this server is served by a writer: a
   * standby whose agent has finished is replaced before the writer is needed.
   */
  watch(): void {
    setTimeout(() => void this.claim(), FIRST_LOOK_MS).unref();
    if (this.looking || this.closed) return;
    this.looking = setInterval(() => void this.claim(), LOOK_MS);
    // Looking never keeps a process alive: its agent's stdio does.
    this.looking.unref();
  }

  /** Stops standing by and looking: this server has become the writer. */
  retire(): void {
    clearInterval(this.looking);
    this.looking = undefined;
    this.release();
  }

  /** Whether another live server is the standby. */
  async elsewhere(): Promise<boolean> {
    return !this.standing && (await reachable(this.path)) === 'yes';
  }

  /** Stops being the standby (on becoming the writer, or closing); the copy stays with the store. */
  release(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    const beacon = this.beacon;
    this.beacon = undefined;
    if (!beacon) return;
    beacon.server.close();
    if (beacon.identity !== undefined && identityOf(this.path) === beacon.identity) rmSync(this.path, { force: true });
  }

  close(): void {
    this.closed = true;
    this.retire();
  }

  private async tryClaim(): Promise<void> {
    if (this.standing || this.closed) return;
    const seen = identityOf(this.path);
    const reached = await reachable(this.path);
    if (reached === 'yes' || reached === 'unknown') return;
    // Refused: the socket of a standby that died. Remove it, unless replaced since.
    if (reached === 'refused' && seen !== undefined) removeDeadSocket(this.path, seen);
    const beacon = await claimSocket(this.path);
    if (!beacon) return;
    if (this.closed) {
      beacon.server.close();
      return;
    }
    beacon.server.on('connection', (socket) => socket.destroy());
    this.beacon = beacon;
    await this.catchUp();
    this.timer = setInterval(() => void this.catchUp(), CATCH_UP_MS);
    // Keeping the copy current never keeps a process alive: its agent's stdio does.
    this.timer.unref();
  }

  /** A read brings the copy up to date with the log; the first one loads the database. */
  private async catchUp(): Promise<void> {
    if (!this.standing) return;
    await this.store.read(async () => undefined).catch(() => undefined);
  }
}

/** Whether a server listens at `path`: 'no' when nothing is there, 'refused' for a socket nobody answers. */
function reachable(path: string): Promise<'yes' | 'no' | 'refused' | 'unknown'> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve('yes');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ENOENT' ? 'no' : error.code === 'ECONNREFUSED' ? 'refused' : 'unknown'));
  });
}
