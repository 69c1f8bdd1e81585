import { readFileSync } from 'node:fs';
import { afterAll, describe, it } from 'vitest';
import { openBaton } from '../../shared/open.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { ok } from '../helpers/tools.js';
import { sleep } from '../helpers/wait.js';

const repos: ScratchRepo[] = [];
const servers: SpawnedServer[] = [];

/** A repository of its own: the one server started in it is its writer, the only process holding a copy. */
function freshRepo(): ScratchRepo {
  const repo = makeRepo();
  repos.push(repo);
  return repo;
}

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const repo of repos) repo.remove();
});

/** Bytes the process has read so far, from any file, pipe or socket (Linux's /proc/<pid>/io). */
function bytesRead(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
}

/** Creates an issue as a short command does: straight into the database, not through a server. */
async function createElsewhere(repo: ScratchRepo, title: string): Promise<void> {
  const opened = await openBaton({ cwd: repo.main, env: {} });
  if (!opened.ok) throw new Error(opened.error.message);
  try {
    const created = await opened.value.baton.createIssue({ title });
    if (!created.ok) throw new Error(created.error.message);
  } finally {
    await opened.value.close();
  }
}

async function serve(repo: ScratchRepo): Promise<SpawnedServer> {
  // No sweep while the test watches: the server's only reads are then those of the log.
  // An idle limit of 4 s makes the server record its agent's activity within a second of
  // its last call (at most every idleSeconds / 4), so that write is over before the test looks.
  const server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'follower', BATON_SWEEP_MS: '60000', BATON_IDLE_SECONDS: '4' } });
  servers.push(server);
  return server;
}

describe.skipIf(process.platform !== 'linux')('a server between calls', () => {
  it("reads another process's write as it is made, when its agent has just read", async () => {
    const repo = freshRepo();
    const server = await serve(repo);
    await ok(server.client, 'list_claims');
    await sleep(100);
    const before = bytesRead(server.pid);
    await createElsewhere(repo, 'written elsewhere');
    await waitFor(() => bytesRead(server.pid) > before, 5_000, 'the server to read the new record');
  });
});
