import type { Followable } from '../shared/open.js';

/**
 * How long the client must have had no request under way before the server keeps its
 * copy of the database current (`FileStore.follow`). A client that calls back to back
 * never waits this long, so its server is not woken by every write of the others; one
 * that thinks between calls, as an agent does for seconds, is followed for nearly all of
 * that time.
 */
export const FOLLOW_AFTER_IDLE_MS = 2;

/**
 * Turns the transport's idle signal (`DrainingTransport.onidle`) into `follow(on)`: on
 * once the client has had no request under way for `afterMs`, off as soon as it sends one.
 * Where following would not follow (a copy not read lately), no timer is set: with
 * agents that only write, the servers' gaps between calls would each end in a wake-up.
 */
export function followWhileIdle(session: Followable, afterMs = FOLLOW_AFTER_IDLE_MS): (idle: boolean) => void {
  let timer: NodeJS.Timeout | undefined;
  let following = false;
  return (idle) => {
    clearTimeout(timer);
    timer = undefined;
    if (idle) {
      if (!session.followable()) return;
      timer = setTimeout(() => {
        timer = undefined;
        following = true;
        session.follow(true);
      }, afterMs);
      // Waiting to follow never keeps a server alive: its stdin does.
      timer.unref();
    } else if (following) {
      following = false;
      session.follow(false);
    }
  };
}
