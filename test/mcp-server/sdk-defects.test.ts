import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitFor } from '../helpers/wait.js';

/*
 * What the SDK (1.32) does on its own way where Baton's server does not take it. Each
 * case is the reason for one bypass: when the SDK changes and a case here fails, the
 * bypass may go.
 *
 * - mcp-server/stdio-transport.ts reads stdin itself: the SDK's StdioServerTransport
 *   ends the whole session at one line past its buffer, and answers a tool call whose
 *   `arguments` is not an object with a JSON-RPC error, where Baton answers INVALID_INPUT.
 * - mcp-server/tool.ts registers every tool with an open input schema and validates
 *   inside its handler: McpServer answers a failed parse with plain text.
 */

/** An McpServer with one tool taking `{ key: string }`, on the SDK's own stdio transport over in-memory pipes. */
async function sdkServer() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = new McpServer({ name: 'sdk-way', version: '0' });
  server.registerTool('get', { inputSchema: { key: z.string() } }, async ({ key }) => ({ content: [{ type: 'text', text: key }] }));
  const transport = new StdioServerTransport(stdin, stdout);
  const state = { closed: false, answers: [] as Record<string, any>[] };
  let out = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      state.answers.push(JSON.parse(out.slice(0, i)));
      out = out.slice(i + 1);
    }
  });
  await server.connect(transport);
  server.server.onclose = () => (state.closed = true);
  const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await waitFor(() => state.answers.some((a) => a.id === 0), 5_000, 'the handshake');
  return { stdin, state, send, answer: (id: number) => state.answers.find((a) => a.id === id), close: () => server.close() };
}

describe('the SDK on its own way', () => {
  it('ends the session when one line outgrows the stdio buffer, and reads nothing after it', async () => {
    const sdk = await sdkServer();
    sdk.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await waitFor(() => sdk.answer(1) !== undefined, 5_000, 'the first ping answered');
    sdk.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${'n'.repeat(STDIO_DEFAULT_MAX_BUFFER_SIZE)}"}}\n`);
    await waitFor(() => sdk.state.closed, 5_000, 'the session to close');
    // Closed, it no longer reads stdin: nothing sent from now on is answered.
    expect(sdk.stdin.listenerCount('data')).toBe(0);
    expect(sdk.answer(2)).toBeUndefined();
  });

  it('answers a tool call whose arguments are not an object with a JSON-RPC error, not a tool result', async () => {
    const sdk = await sdkServer();
    sdk.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get', arguments: 'BAT-1' } });
    await waitFor(() => sdk.answer(1) !== undefined, 5_000, 'the answer');
    expect(sdk.answer(1)).toMatchObject({ error: { code: expect.any(Number) } });
    expect(sdk.answer(1)?.result).toBeUndefined();
    await sdk.close();
  });

  it('answers arguments its schema refuses with plain text, without structuredContent', async () => {
    const sdk = await sdkServer();
    sdk.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get', arguments: { key: 7 } } });
    await waitFor(() => sdk.answer(1) !== undefined, 5_000, 'the answer');
    const { result } = sdk.answer(1)!;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/Input validation error/);
    expect(result.structuredContent).toBeUndefined();
    await sdk.close();
  });
});
