import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Baton } from '../../../shared/baton.js';
import { openBaton, type Opened } from '../../../shared/open.js';
import { createWorktree } from '../../../shared/worktrees/create.js';
import { applyTidy, planTidy } from '../../../shared/worktrees/tidy.js';
import { makeRepo, type ScratchRepo } from '../../helpers/git.js';
import { spawnServer, type SpawnedServer, waitFor } from '../../helpers/spawnServer.js';

describe('tidy checks each worktree again right before removing it', () => {
  let repo: ScratchRepo;
  let opened: Opened;
  let baton: Baton;
  const servers: SpawnedServer[] = [];

  beforeEach(async () => {
    repo = makeRepo();
    const result = await openBaton({ cwd: repo.main, env: {} });
    if (!result.ok) throw new Error(result.error.message);
    opened = result.value;
    baton = opened.baton;
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close().catch(() => {});
    await opened.close();
    repo.remove();
  });

  async function made(name: string): Promise<string> {
    const result = await createWorktree({ cwd: repo.main, name, root: null });
    if (!result.ok) throw new Error(result.error.message);
    return result.value.path;
  }

  it('keeps a worktree in which a session started after the plan was made', async () => {
    const path = await made('late');
    const calm = await made('calm');
    const plan = await planTidy(repo.main, baton, repo.main);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.remove.map((view) => view.path).sort()).toEqual([calm, path].sort());

    const server = await spawnServer({ cwd: path, env: { BATON_AGENT: 'late-agent' } });
    servers.push(server);
    await waitFor(async () => {
      const sessions = await baton.listSessions();
      return sessions.ok && sessions.value.sessions.some((s) => s.pid === server.pid);
    }, 10_000, 'the late session to be recorded');

    const outcome = await applyTidy(plan.value, baton, repo.main);
    if (!outcome.ok) throw new Error(outcome.error.message);
    // The positive control in the same run: the other planned worktree went.
    expect(outcome.value.removed.map((r) => r.path)).toEqual([calm]);
    expect(outcome.value.kept.find((k) => k.path === path)?.reasons.map((r) => r.code)).toEqual(['session']);
    expect(existsSync(path)).toBe(true);
    expect(existsSync(calm)).toBe(false);
  });

  it('keeps a worktree in which a file was written after the plan was made', async () => {
    const path = await made('busy');
    const plan = await planTidy(repo.main, baton, repo.main);
    if (!plan.ok) throw new Error(plan.error.message);
    expect(plan.value.remove.map((view) => view.path)).toEqual([path]);
    writeFileSync(join(path, 'draft.md'), 'new work\n');
    const outcome = await applyTidy(plan.value, baton, repo.main);
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.value.kept.find((k) => k.path === path)?.reasons).toEqual([{ code: 'untracked', message: '1 untracked file: draft.md' }]);
    expect(existsSync(join(path, 'draft.md'))).toBe(true);
  });

  it('removes unchanged copies of the agent files with the worktree, and keeps a worktree whose copy an agent changed', async () => {
    writeFileSync(join(repo.main, '.mcp.json'), '{"mcpServers":{}}\n');
    const same = await made('same');
    const edited = await made('edited');
    expect(existsSync(join(same, '.mcp.json'))).toBe(true);
    writeFileSync(join(edited, '.mcp.json'), '{"mcpServers":{"mine":{}}}\n');
    const plan = await planTidy(repo.main, baton, repo.main);
    if (!plan.ok) throw new Error(plan.error.message);
    const outcome = await applyTidy(plan.value, baton, repo.main);
    if (!outcome.ok) throw new Error(outcome.error.message);
    expect(outcome.value.removed.map((r) => r.path)).toEqual([same]);
    expect(outcome.value.kept.find((k) => k.path === edited)?.reasons.map((r) => r.message)).toEqual(['1 untracked file: .mcp.json']);
    expect(existsSync(join(repo.main, '.mcp.json'))).toBe(true);
  });
});
