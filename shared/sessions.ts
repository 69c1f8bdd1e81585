import { hostname } from 'node:os';
import type { SessionRecord } from './types.js';

/**
 * Whether the process behind a session still runs. Only a process on this machine can
 * be checked; one elsewhere counts as alive, so no renewer here gives up on it.
 */
export function isSessionAlive(session: Pick<SessionRecord, 'pid' | 'host' | 'endedAt'>): boolean {
  if (session.endedAt) return false;
  if (session.host !== hostname()) return true;
  return isProcessAlive(session.pid);
}

/** `kill(pid, 0)`: EPERM still means the process exists. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
