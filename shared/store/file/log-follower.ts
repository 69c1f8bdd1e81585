import type { FSWatcher } from 'node:fs';
import type { FileSystem } from './file-system.js';
import type { LogFile } from './log-file.js';

/**
 * How long a paused follower keeps its watch. Taking a watch down is a system call that,
 * run as a call arrives, lengthened an idle server's answers by about a tenth of a
 * millisecond; and a process between calls again soon would only put it back up.
 */
const LINGER_MS = 20;

/**
 * Tells its owner whenever the log its copy reads from changes: another process appended
 * a record, or replaced the log (compaction; the replaced file's link count changes).
 * It watches the one log file rather than the folder, which also holds the forwarded
 * writes' answers and the snapshot's temporary files: a folder watch would wake the
 * process for those too.
 */
export class LogFollower {
  private watcher: FSWatcher | undefined;
  private watched: LogFile | undefined;
  private paused = false;
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly fs: FileSystem,
    private readonly path: string,
    private readonly changed: () => void,
  ) {}

  /**
   * Watches `log`, the generation the copy now reads, unless it already does. True when
   * it has just begun to: the owner then looks at the log once more, since a record may
   * have come between its last look and the watch.
   */
  watch(log: LogFile | undefined): boolean {
    if (log === this.watched) return false;
    this.stopWatching();
    // No log yet (a database nobody has written since it was made): the first write makes one.
    if (!log || log.closed) return false;
    try {
      this.watcher = this.fs.watch(this.path, { persistent: false }, () => {
        if (!this.paused) this.changed();
      });
    } catch {
      // No file events here: the copy catches up at its next call, as without following.
      return false;
    }
    this.watcher.on('error', () => this.stopWatching());
    this.watched = log;
    return true;
  }

  /** Stops telling, and lets go of the watch unless `resume` comes within `LINGER_MS`. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.lingering = setTimeout(() => this.stopWatching(), LINGER_MS);
    this.lingering.unref();
  }

  resume(): void {
    this.paused = false;
    clearTimeout(this.lingering);
    this.lingering = undefined;
  }

  close(): void {
    this.resume();
    this.stopWatching();
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = undefined;
  }
}
