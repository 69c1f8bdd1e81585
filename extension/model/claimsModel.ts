import { batonError } from '../../shared/errors.js';
import { Emitter, every as defaultEvery, type Disposable, type Every } from './emitter.js';
import type { ClaimsSource, ModelState } from './snapshot.js';

export interface ClaimsModelOptions {
  /** How often to ask the source for its version. */
  pollMs: number;
  every?: Every;
}

/**
 * Owns what the Claims view, the status bar and the renewer read. It asks the source
 * for its cheap version a few times a second and reloads only when that changed, so
 * other processes' changes show within a second without reading the database each time.
 */
export class ClaimsModel implements Disposable {
  private readonly changed = new Emitter<ModelState>();
  readonly onDidChange = this.changed.event;

  private current: ModelState = { kind: 'loading' };
  private seenVersion: string | undefined;
  /** Checks run one after another; a poll asked for while one waits is dropped. */
  private queue: Promise<void> = Promise.resolve();
  private pollQueued = false;
  private timer: Disposable | undefined;
  private disposed = false;

  constructor(
    private readonly source: ClaimsSource,
    private readonly options: ClaimsModelOptions,
  ) {}

  get state(): ModelState {
    return this.current;
  }

  /** Loads once, then polls until disposed. */
  start(): Promise<void> {
    const first = this.refresh();
    this.timer ??= (this.options.every ?? defaultEvery)(this.options.pollMs, () => void this.poll());
    return first;
  }

  /** Reloads if the store changed since the last load. */
  poll(): Promise<void> {
    if (this.pollQueued) return this.queue;
    this.pollQueued = true;
    return this.enqueue(async () => {
      this.pollQueued = false;
      await this.check(false);
    });
  }

  /** Reloads whether or not the store changed. */
  refresh(): Promise<void> {
    return this.enqueue(() => this.check(true));
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.dispose();
    this.changed.dispose();
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async check(force: boolean): Promise<void> {
    if (this.disposed) return;
    try {
      // The version is read before the data: a commit in between makes the next poll reload again.
      const version = await this.source.version();
      if (!force && version === this.seenVersion) return;
      const next = await this.source.load({ full: force });
      this.seenVersion = version;
      this.publish(next);
    } catch (error) {
      this.seenVersion = undefined;
      this.publish({ kind: 'error', error: batonError('STORE_UNAVAILABLE', error instanceof Error ? error.message : String(error)) });
    }
  }

  private publish(next: ModelState): void {
    if (this.disposed) return;
    // A store that stays unavailable is reported once, not at every poll.
    if (next.kind === 'error' && this.current.kind === 'error' && next.error.message === this.current.error.message) return;
    this.current = next;
    this.changed.fire(next);
  }
}
