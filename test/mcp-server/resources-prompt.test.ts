import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawnServer.js';
import { ok } from '../helpers/tools.js';

let repo: ScratchRepo;
let server: SpawnedServer;
let token: string;

beforeAll(async () => {
  repo = makeRepo();
  server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'reader' } });
  await ok(server.client, 'create_issue', { title: 'Readable issue', body: 'The **body** of it.', labels: ['docs'] });
  const claim = await ok(server.client, 'next_issue');
  token = claim.lease.claimToken;
  await ok(server.client, 'checkpoint', { key: 'BAT-1', claimToken: token, note: 'outline written' });
  await ok(server.client, 'comment', { key: 'BAT-1', text: 'looks good' });
});
afterAll(async () => {
  await server.close();
  repo.remove();
});

describe('issue resources', () => {
  it('offers the baton://issue/{key} template', async () => {
    const { resourceTemplates } = await server.client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(expect.objectContaining({ uriTemplate: 'baton://issue/{key}', mimeType: 'text/markdown' }));
  });

  it('lists issues as resources', async () => {
    const { resources } = await server.client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: 'baton://issue/BAT-1', name: 'BAT-1' }));
  });

  it('reads an issue with its body, lease holder, checkpoint and comments, but never the token, even to the holder', async () => {
    const { contents } = await server.client.readResource({ uri: 'baton://issue/BAT-1' });
    const text = contents[0] && 'text' in contents[0] ? contents[0].text : '';
    expect(contents[0]?.mimeType).toBe('text/markdown');
    for (const part of ['Readable issue', 'The **body** of it.', 'held by reader', 'outline written', 'looks good']) expect(text).toContain(part);
    expect(text).not.toContain(token);
    expect(text).not.toContain('claimToken');
  });

  it('refuses an issue that does not exist, and keeps serving', async () => {
    await expect(server.client.readResource({ uri: 'baton://issue/BAT-404' })).rejects.toThrow(/BAT-404/);
    await expect(server.client.readResource({ uri: 'baton://issue/not-a-key' })).rejects.toThrow();
    expect((await ok(server.client, 'list_issues')).issues).toHaveLength(1);
  });
});

describe('work loop prompt', () => {
  it('is offered and teaches the loop: next_issue, the branch, checkpoints, done, CLAIM_LOST, restart with the old token', async () => {
    const { prompts } = await server.client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('work_loop');
    const prompt = await server.client.getPrompt({ name: 'work_loop' });
    const text = prompt.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    for (const part of ['next_issue', 'branch', 'checkpoint', 'heartbeat', 'done', 'CLAIM_LOST', 'claim_issue', 'claimToken you', 'CLAIM_MISMATCH']) {
      expect(text).toContain(part);
    }
  });
});
