import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';

/**
 * Listens at `path` unless another process already does: then `undefined`. The socket
 * is made under a name of its own and then linked to `path`, which fails if `path`
 * exists, so two processes racing for it cannot both have it. The inode tells the file
 * made here from one another process made there later (`inodeOf`).
 */
export async function claimSocket(path: string): Promise<{ server: Server; inode: number | undefined } | undefined> {
  if (process.platform === 'win32') {
    const server = await listening(path).catch(() => undefined);
    return server && { server, inode: undefined };
  }
  const own = `${path}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const server = await listening(own);
  try {
    chmodSync(own, 0o600);
    linkSync(own, path);
    return { server, inode: statSync(path).ino };
  } catch (error) {
    server.close();
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  } finally {
    rmSync(own, { force: true });
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

/** The inode at `path`, or undefined when nothing is there. */
export function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}
