import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClient } from '../../bench/stdio-client.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI } from '../helpers/spawnServer.js';
import { testDir } from '../helpers/test-dir.js';

let repo: ScratchRepo;

beforeAll(() => {
  repo = makeRepo();
});
afterAll(() => repo.remove());

const environment = (agent: string) => ({ ...getDefaultEnvironment(), BATON_AGENT: agent });

function startBaton(agent: string): Promise<StdioClient> {
  return StdioClient.start({ command: process.execPath, args: [CLI, 'serve'], cwd: repo.main, env: environment(agent), clientName: agent });
}

/** A stand-in server: a script that answers initialize, then does what `after` says. */
function startScript(after: string, timeoutMs?: number): Promise<StdioClient> {
  const script = join(testDir('baton-stdio-client-'), 'server.js');
  writeFileSync(
    script,
    `const lines = require('node:readline').createInterface({ input: process.stdin });
     const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
     lines.on('line', (line) => {
       const m = JSON.parse(line);
       if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'script', version: '1' } } });
       else { ${after} }
     });`,
  );
  return StdioClient.start({ command: process.execPath, args: [script], cwd: repo.main, env: environment('script'), clientName: 'script', timeoutMs });
}

describe('StdioClient against baton serve', () => {
  it('lists the tools, answers tool calls with their structured content, and pings', async () => {
    const client = await startBaton('agent-a');
    try {
      expect(await client.listTools()).toEqual(expect.arrayContaining(['next_issue', 'heartbeat', 'checkpoint', 'done', 'list_claims']));
      const created = await client.callTool('create_issue', { title: 'Measure the read path' });
      expect(created.isError).toBe(false);
      const claimed = await client.callTool('next_issue', {});
      expect(claimed).toMatchObject({ isError: false, structuredContent: { issue: { key: created.structuredContent.issue.key } } });
      expect(claimed.structuredContent.lease.claimToken).toEqual(expect.any(String));
      await expect(client.ping()).resolves.toBeUndefined();
      expect(client.pid).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('returns a refusal as isError with its code', async () => {
    const client = await startBaton('agent-b');
    try {
      const refused = await client.callTool('heartbeat', { key: 'BAT-999', claimToken: 'not-a-token' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.error.code).toEqual(expect.any(String));
    } finally {
      await client.close();
    }
  });

  it('ends the server when closed', async () => {
    const client = await startBaton('agent-c');
    const pid = client.pid;
    await client.close();
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('StdioClient against a misbehaving server', () => {
  it('fails a call whose server exits, with the end of its stderr', async () => {
    const client = await startScript(`process.stderr.write('out of cheese'); process.exit(3);`);
    await expect(client.ping()).rejects.toThrow(/code 3.*out of cheese/);
    // Every later call fails the same way instead of waiting.
    await expect(client.callTool('list_claims', {})).rejects.toThrow(/out of cheese/);
  });

  it('reads an answer written just before the server exits', async () => {
    const client = await startScript(`if (m.method === 'ping') { send({ jsonrpc: '2.0', id: m.id, result: {} }); process.exit(0); }`);
    await expect(client.ping()).resolves.toBeUndefined();
    await expect(client.ping()).rejects.toThrow('the server exited (code 0)');
  });

  it('fails to start a server that cannot be spawned', async () => {
    await expect(
      StdioClient.start({ command: join(repo.dir, 'no-such-server'), args: [], cwd: repo.main, env: environment('none'), clientName: 'none' }),
    ).rejects.toThrow(/ENOENT/);
  });

  it('fails on an answer that is not JSON', async () => {
    const client = await startScript(`process.stdout.write('not json\\n');`);
    await expect(client.ping()).rejects.toThrow(/not JSON: not json/);
  });

  it('fails a JSON-RPC error with its message and code', async () => {
    const client = await startScript(`send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no such method' } });`);
    try {
      await expect(client.ping()).rejects.toThrow('ping failed: no such method (-32601)');
    } finally {
      await client.close();
    }
  });

  it('fails a tool answer without structured content', async () => {
    const client = await startScript(`send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'hi' }] } });`);
    try {
      await expect(client.callTool('list_claims', {})).rejects.toThrow('list_claims answered without structuredContent');
    } finally {
      await client.close();
    }
  });

  it('refuses a request of the server, and reads answers split across reads', async () => {
    // The server asks the client something first, and answers the ping only once refused, in two pieces.
    const client = await startScript(
      `if (m.method === 'ping') { globalThis.pingId = m.id; send({ jsonrpc: '2.0', id: 'q1', method: 'roots/list' }); }
       else if (m.id === 'q1' && m.error) {
         const answer = JSON.stringify({ jsonrpc: '2.0', id: globalThis.pingId, result: { refused: m.error.code } });
         process.stdout.write(answer.slice(0, 10));
         setTimeout(() => process.stdout.write(answer.slice(10) + '\\n'), 20);
       }`,
    );
    try {
      await expect(client.ping()).resolves.toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('fails a call that has no answer in time', async () => {
    const client = await startScript('', 200);
    try {
      await expect(client.ping()).rejects.toThrow('ping had no answer within 0.2 s');
    } finally {
      await client.close();
    }
  });

  it('refuses a server that answers initialize with a protocol version it does not know', async () => {
    const script = join(testDir('baton-stdio-client-'), 'server.js');
    writeFileSync(
      script,
      `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
         const m = JSON.parse(line);
         process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '1999-01-01' } }) + '\\n');
       });`,
    );
    await expect(
      StdioClient.start({ command: process.execPath, args: [script], cwd: repo.main, env: environment('old'), clientName: 'old' }),
    ).rejects.toThrow('protocol version 1999-01-01');
  });
});
