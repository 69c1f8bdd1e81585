import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claimSocket, identityOf, removeDeadSocket } from '../../shared/forwarding/socket-claim.js';
import { storeScratch } from './store/store-scratch.js';

const scratch = storeScratch('socket-claim', 'writer.sock');

/** Listens at `path`, then stops listening and leaves the file, as a killed server does. */
async function deadSocket(path: string): Promise<string> {
  const claimed = await claimSocket(path);
  if (!claimed?.identity) throw new Error('no socket claimed');
  await new Promise<void>((resolve) => claimed.server.close(() => resolve()));
  // close() unlinks a socket it bound itself, but this one was bound under another name.
  expect(existsSync(path)).toBe(true);
  return claimed.identity;
}

describe('replacing the socket of a dead server', () => {
  it('removes the dead socket it was shown', async () => {
    const dead = await deadSocket(scratch.path);
    removeDeadSocket(scratch.path, dead);
    expect(existsSync(scratch.path)).toBe(false);
  });

  it('leaves the live socket another server put in its place, even under the dead one\'s inode number', async () => {
    const dead = await deadSocket(scratch.path);
    removeDeadSocket(scratch.path, dead);
    const live = await claimSocket(scratch.path);
    try {
      expect(live?.identity).toBeDefined();
      expect(live!.identity).not.toBe(dead);
      // A remover that judged the old socket dead before the new one came removes nothing now.
      removeDeadSocket(scratch.path, dead);
      expect(identityOf(scratch.path)).toBe(live!.identity);
    } finally {
      live?.server.close();
    }
  });

  it('removes nothing while another remover holds the guard, and clears a guard left by a killed one', async () => {
    const dead = await deadSocket(scratch.path);
    writeFileSync(`${scratch.path}.break`, '');
    removeDeadSocket(scratch.path, dead);
    expect(identityOf(scratch.path)).toBe(dead);
    // A guard a second old is a dead remover's: the next look clears it, the one after removes.
    const old = new Date(Date.now() - 2000);
    utimesSync(`${scratch.path}.break`, old, old);
    removeDeadSocket(scratch.path, dead);
    removeDeadSocket(scratch.path, dead);
    expect(existsSync(scratch.path)).toBe(false);
  });
});
