import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll } from 'vitest';
import { makeRepo, type ScratchRepo } from './git.js';
import { type SpawnedServer, spawnServer } from './spawnServer.js';

/**
 * A scratch repository with worktrees for one test file, and `serve` to start an agent's
 * server in it; every server is closed and the repository removed when the file ends.
 */
export function repoWithServers(worktrees: string[]): { repo: ScratchRepo; serve(agent: string, env?: Record<string, string>, cwd?: string): Promise<Client> } {
  const servers: SpawnedServer[] = [];
  const fixture = {
    repo: undefined as unknown as ScratchRepo,
    async serve(agent: string, env: Record<string, string> = {}, cwd?: string): Promise<Client> {
      cwd ??= fixture.repo.main;
      const server = await spawnServer({ cwd, env: { BATON_AGENT: agent, ...env } });
      servers.push(server);
      return server.client;
    },
  };
  beforeAll(() => {
    fixture.repo = makeRepo({ worktrees });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    fixture.repo.remove();
  });
  return fixture;
}
