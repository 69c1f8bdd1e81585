import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, linkSync, openSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Listens at `path` unless another process already does: then `undefined`. The socket
 * is made under a name of its own and then linked to `path`, which fails if `path`
 * exists, so two processes racing for it cannot both have it. `identity` tells the file
 * made here from one another process made there later (`identityOf`).
 */
export async function claimSocket(path: string): Promise<{ server: Server; identity: string | undefined } | undefined> {
  if (process.platform === 'win32') {
    const server = await listening(path).catch(() => undefined);
    return server && { server, identity: undefined };
  }
  const own = `${path}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const server = await listening(own);
  try {
    chmodSync(own, 0o600);
    linkSync(own, path);
  } catch (error) {
    server.close();
    rmSync(own, { force: true });
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  // Read once the second name is gone: removing a link changes the file's status time.
  rmSync(own, { force: true });
  return { server, identity: identityOf(path) };
}

/** How old a removal guard must be to be a dead remover's: a live one holds it for microseconds. */
const GUARD_STALE_MS = 1000;

/**
 * Removes the socket at `path` if it is still the one found dead (`seen`, from
 * `identityOf`). Removers take turns under `<path>.break`: without it, one that judged the
 * dead socket a moment ago could remove the live socket another server has put in its
 * place since.
 */
export function removeDeadSocket(path: string, seen: string): void {
  const guard = `${path}.break`;
  let fd: number;
  try {
    fd = openSync(guard, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
    // Another is removing it now, or was killed doing so: then its guard is cleared for the next look.
    const stat = statSync(guard, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > GUARD_STALE_MS) rmSync(guard, { force: true });
    return;
  }
  try {
    closeSync(fd);
    if (identityOf(path) === seen) rmSync(path, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

function listening(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      // Listening never keeps a process alive: its agent's stdio does.
      server.unref();
      resolve(server);
    });
  });
}

/**
 * What tells the file at `path` from any other that was or will be there, or undefined
 * when nothing is: its inode and the time its status last changed. The inode alone does
 * not: the number of a removed socket is given at once to the next file made, which may
 * be the socket a live server put in the dead one's place.
 */
export function identityOf(path: string): string | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stat && `${stat.ino}:${stat.ctimeNs}`;
}
