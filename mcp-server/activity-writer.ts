/**
 * Keeps the agent's last activity in memory and writes it to the store at most every
 * `writeMs`: the first call after a quiet spell writes at once, calls within the interval
 * write nothing, and the last of them is written when the interval ends, so the store is
 * never more than `writeMs` behind. A renewal that wrote the activity itself (heartbeat,
 * checkpoint) counts as a write. docs/protocol.md, "Liveness".
 */
export class ActivityWriter {
  private lastWritten = Number.NEGATIVE_INFINITY;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly options: {
      writeMs: number;
      write: () => Promise<void>;
      log: (line: string) => void;
      now?: () => number;
    },
  ) {}

  /** A tool call: `written` when its own transaction recorded the activity. */
  noted(written: boolean): void {
    if (this.closed) return;
    const now = this.now();
    if (written) {
      this.lastWritten = now;
      this.pending = false;
      return;
    }
    if (now - this.lastWritten >= this.options.writeMs && !this.writing) {
      this.lastWritten = now;
      this.start();
      return;
    }
    this.pending = true;
    this.timer ??= setTimeout(() => this.trail(), Math.max(0, this.lastWritten + this.options.writeMs - now));
    // A trailing write must not keep a stopping process alive.
    this.timer.unref?.();
  }

  /** Writes what is still pending and waits for the write under way; no write after this. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.writing;
    if (this.pending) {
      this.pending = false;
      this.start();
      await this.writing;
    }
  }

  private trail(): void {
    this.timer = undefined;
    if (!this.pending || this.closed) return;
    if (this.writing) {
      // Still writing the previous one: look again once that is done.
      this.timer = setTimeout(() => this.trail(), this.options.writeMs);
      this.timer.unref?.();
      return;
    }
    this.pending = false;
    this.lastWritten = this.now();
    this.start();
  }

  private start(): void {
    this.writing = this.options
      .write()
      .catch((error: unknown) => this.options.log(`baton: could not record activity: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (this.writing = undefined));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
