import { createHash } from 'node:crypto';
import { storePaths } from '../store/paths.js';

/** Longest socket path every platform accepts (macOS: 104 bytes with the final NUL). */
export const SOCKET_PATH_MAX = 103;

/**
 * The socket of the server writing for the others of the database at `snapshot`, or
 * undefined where its path would be too long. Apart from `WriteRoute` so that a process
 * that only asks that server (a hook) loads nothing of the store.
 */
export function writerSocketFor(snapshot: string): string | undefined {
  if (process.platform === 'win32') return `\\\\.\\pipe\\baton-${createHash('sha256').update(snapshot).digest('hex')}`;
  const { socket } = storePaths(snapshot);
  // The socket is first made under a longer name of its own (see WriteServer.publish).
  return socket.length + 24 <= SOCKET_PATH_MAX ? socket : undefined;
}
