import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBaton } from '../../shared/open.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { ok } from '../helpers/tools.js';
import { sleep } from '../helpers/wait.js';

let repo: ScratchRepo;
const servers: SpawnedServer[] = [];

beforeAll(() => {
  repo = makeRepo();
});
afterAll(async () => {
  for (const server of servers) await server.close();
  repo.remove();
});

/** Bytes the process has read so far, from any file, pipe or socket (Linux's /proc/<pid>/io). */
function bytesRead(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/** Creates an issue as a short command does: straight into the database, not through a server. */
async function createElsewhere(title: string): Promise<void> {
  const opened = await openBaton({ cwd: repo.main, env: {} });
  if (!opened.ok) throw new Error(opened.error.message);
  try {
    const created = await opened.value.baton.createIssue({ title });
    if (!created.ok) throw new Error(created.error.message);
  } finally {
    await opened.value.close();
  }
}

async function serve(): Promise<SpawnedServer> {
  // No sweep while the test watches: the server's only reads are then those of the log.
  const server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'follower', BATON_SWEEP_MS: '60000' } });
  servers.push(server);
  return server;
}

describe.skipIf(process.platform !== 'linux')('a server between calls', () => {
  it("reads another process's write as it is made, when its agent has just read", async () => {
    const server = await serve();
    await ok(server.client, 'list_claims');
    await sleep(100);
    const before = bytesRead(server.pid);
    await createElsewhere('written elsewhere');
    await waitFor(() => bytesRead(server.pid) > before, 5_000, 'the server to read the new record');
  });

  it('leaves the log alone when its agent has not read for a while', async () => {
    const server = await serve();
    await ok(server.client, 'create_issue', { title: 'written here' });
    // Past the second within which a read makes a copy follow (opening the store read it).
    await sleep(1_200);
    await ok(server.client, 'create_issue', { title: 'written here too' });
    // The control: a server whose agent has just read, which does read the write.
    const control = await serve();
    await ok(control.client, 'list_claims');
    await sleep(100);
    const before = bytesRead(server.pid);
    const controlBefore = bytesRead(control.pid);
    await createElsewhere('written elsewhere, unread');
    await waitFor(() => bytesRead(control.pid) > controlBefore, 5_000, 'the control server to read the new record');
    expect(bytesRead(server.pid)).toBe(before);
  });
});
