import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness } from '../helpers/core.js';
import { makeRepo } from '../helpers/git.js';
import { type InProcessServer, inProcessServer } from '../helpers/inProcessServer.js';
import { spawnServer } from '../helpers/spawnServer.js';

const TOOLS = [
  'next_issue',
  'next_batch',
  'claim_issue',
  'check_claim',
  'heartbeat',
  'checkpoint',
  'release',
  'done',
  'submit_for_review',
  'review',
  'create_issue',
  'update_issue',
  'get_issue',
  'list_issues',
  'relate',
  'comment',
  'list_claims',
  'activity',
];

describe('tools/list', () => {
  let server: InProcessServer;
  let h: Awaited<ReturnType<typeof openHarness>>;
  beforeAll(async () => {
    h = await openHarness();
    server = await inProcessServer(h.session('lister'));
  });
  afterAll(async () => {
    await server.close();
    await h.close();
  });

  it('offers exactly the 18 tools of the protocol', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
  });

  it('stays within 24 KB', async () => {
    const result = await server.client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
    console.error(`tools/list: ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(24 * 1024);
  });

  it('gives every tool a description, an output schema and the three annotations', async () => {
    const { tools } = await server.client.listTools();
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint, tool.name).toBe('boolean');
    }
  });

  it('describes every input field', async () => {
    const { tools } = await server.client.listTools();
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(properties)) {
        expect(schema.description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('lists real input schemas with required fields and no unknown ones allowed', async () => {
    const { tools } = await server.client.listTools();
    const checkpoint = tools.find((t) => t.name === 'checkpoint')!;
    expect(checkpoint.inputSchema.required).toEqual(['key', 'claimToken', 'note']);
    expect(checkpoint.inputSchema).toMatchObject({ additionalProperties: false });
  });

  it('marks the read-only tools as such', async () => {
    const { tools } = await server.client.listTools();
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name).sort();
    expect(readOnly).toEqual(['activity', 'check_claim', 'get_issue', 'list_claims', 'list_issues']);
  });

  it('lists output schemas open at every level, so that fields added later pass older clients', async () => {
    const { tools } = await server.client.listTools();
    for (const tool of tools) {
      expect(JSON.stringify(tool.outputSchema), tool.name).not.toContain('additionalProperties');
    }
  });

  it('answers from the bundle exactly as from the sources', async () => {
    const repo = makeRepo();
    const built = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'lister' } });
    try {
      expect(await built.client.listTools()).toEqual(await server.client.listTools());
    } finally {
      await built.close();
      repo.remove();
    }
  });
});
