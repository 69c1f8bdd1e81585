import { readFileSync } from 'node:fs';

/**
 * The process listening at a database's socket, among `pids`: the writer. A writer binds
 * its socket under a name of its own holding its pid before linking it to `socket`, and
 * /proc/net/unix keeps the name it was bound to. The standby, where there is one, listens
 * at `<socket>-standby` the same way.
 */
export function writerAmong(socket: string, pids: readonly number[]): number | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return undefined;
  }
  const live = new Set(pids);
  for (const line of table.split('\n')) {
    const at = line.indexOf(`${socket}-`);
    if (at < 0) continue;
    const pid = Number(line.slice(at + socket.length + 1).split('-')[0]);
    if (live.has(pid)) return pid;
  }
  return undefined;
}

/** The standby among `pids` (see shared/forwarding/standby.ts); undefined where there is none. */
export function standbyAmong(socket: string, pids: readonly number[]): number | undefined {
  return writerAmong(`${socket}-standby`, pids);
}
