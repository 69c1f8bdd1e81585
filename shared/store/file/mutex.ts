/**
 * An in-process async mutex. The sweep timer and tool calls of one server share a
 * database copy, and a transaction awaits between statements, so two of them must not
 * interleave on it. Waiters run in arrival order.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private callers = 0;

  /** Whether a caller is running or waiting. */
  get busy(): boolean {
    return this.callers > 0;
  }

  /** Runs `fn` once every earlier caller has finished. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.callers++;
    try {
      await previous;
      return await fn();
    } finally {
      this.callers--;
      release();
    }
  }
}
