import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, StdioLineTransport } from '../../mcp-server/stdio-transport.js';
import { makeRepo } from '../helpers/git.js';
import { initializeMessages, spawnRawServer, waitFor } from '../helpers/spawnServer.js';

interface Wire {
  stdin: PassThrough;
  received: JSONRPCMessage[];
  answers: Record<string, unknown>[];
  errors: Error[];
}

const transports: StdioLineTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
});

async function wire(): Promise<Wire> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioLineTransport(stdin, stdout);
  transports.push(transport);
  const w: Wire = { stdin, received: [], answers: [], errors: [] };
  transport.onmessage = (message) => w.received.push(message);
  transport.onerror = (error) => w.errors.push(error);
  let out = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      w.answers.push(JSON.parse(out.slice(0, i)) as Record<string, unknown>);
      out = out.slice(i + 1);
    }
  });
  await transport.start();
  return w;
}

/** Writes `text` in pieces of `size` bytes, as a pipe may deliver it. */
function writeInPieces(stream: PassThrough, text: string, size: number): void {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) stream.write(bytes.subarray(i, i + size));
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const big = (bytes: number) => 'n'.repeat(bytes);

describe('the stdio transport', () => {
  it('reads messages split across chunks, several in one chunk, and lines ending in CRLF', async () => {
    const w = await wire();
    writeInPieces(w.stdin, `${JSON.stringify(ping(1))}\n${JSON.stringify(ping(2))}\r\n\n${JSON.stringify(ping(3))}\n`, 7);
    await settle();
    expect(w.received).toEqual([ping(1), ping(2), ping(3)]);
    expect(w.errors).toEqual([]);
  });

  it('skips a line too large to read, refuses the tool call by its id, and reads the next message', async () => {
    const w = await wire();
    // The SDK's client writes the id last, after the params; a nested "id" must not be taken for it.
    const call = `{"method":"tools/call","params":{"name":"comment","arguments":{"key":"BAT-1","text":"${big(MAX_MESSAGE_BYTES)}","state":{"id":99}}},"jsonrpc":"2.0","id":7}`;
    writeInPieces(w.stdin, `${call}\n${JSON.stringify(ping(8))}\n`, 1 << 20);
    await settle();
    expect(w.errors).toHaveLength(1);
    expect(w.errors[0]).toBeInstanceOf(MessageTooLargeError);
    expect(w.answers).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        result: {
          isError: true,
          content: [{ type: 'text', text: expect.stringMatching(/^INVALID_INPUT: The message is larger than 10 MiB and was not read\./) }],
          structuredContent: { error: { code: 'INVALID_INPUT', message: 'The message is larger than 10 MiB and was not read.' } },
        },
      },
    ]);
    expect(w.received).toEqual([ping(8)]);
  });

  it('refuses any other request too large to read as invalid, and answers nothing to such a notification', async () => {
    const w = await wire();
    const request = `{"jsonrpc":"2.0","id":"r-1","method":"resources/read","params":{"uri":"${big(MAX_MESSAGE_BYTES)}"}}`;
    const notification = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${big(MAX_MESSAGE_BYTES)}","id":3}}`;
    w.stdin.write(`${request}\n${notification}\n${JSON.stringify(ping(9))}\n`);
    await settle();
    expect(w.answers).toEqual([{ jsonrpc: '2.0', id: 'r-1', error: { code: -32600, message: 'The message is larger than 10 MiB and was not read.' } }]);
    expect(w.errors.map((e) => e.name)).toEqual(['MessageTooLargeError', 'MessageTooLargeError']);
    expect(w.received).toEqual([ping(9)]);
  });

  it.each([null, [], 'text', 3])('refuses a tool call whose arguments are %j as INVALID_INPUT', async (args) => {
    const w = await wire();
    w.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_issue', arguments: args } })}\n`);
    await settle();
    expect(w.received).toEqual([]);
    expect(w.answers).toHaveLength(1);
    expect(w.answers[0]).toMatchObject({
      id: 4,
      result: { isError: true, structuredContent: { error: { code: 'INVALID_INPUT', issues: [{ path: '(arguments)' }] } } },
    });
  });

  it('passes on tool calls with arguments as an object or without any', async () => {
    const w = await wire();
    const calls = [
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_claims', arguments: {} } },
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_claims' } },
    ];
    w.stdin.write(calls.map((c) => `${JSON.stringify(c)}\n`).join(''));
    await settle();
    expect(w.received).toEqual(calls);
    expect(w.answers).toEqual([]);
  });
});

describe('baton serve', () => {
  it('answers a tool call too large to read with INVALID_INPUT and goes on serving', async () => {
    const repo = makeRepo();
    const server = spawnRawServer({ cwd: repo.main });
    try {
      const [init, initialized] = initializeMessages();
      server.send(init);
      await waitFor(() => server.messages.length > 0, 10_000, 'the initialize answer');
      server.send(initialized);
      server.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'comment', arguments: { key: 'BAT-1', text: big(11 << 20) } } });
      server.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_claims', arguments: {} } });
      await waitFor(() => server.messages.length >= 3, 20_000, 'both answers');
      const byId = new Map(server.messages.map((m) => [(m as { id: number }).id, m as { result: { isError?: boolean; structuredContent: object } }]));
      expect(byId.get(2)?.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'INVALID_INPUT' } } });
      expect(byId.get(3)?.result.structuredContent).toEqual({ claims: [] });
      expect(server.stderr()).toContain('baton: transport: MessageTooLargeError; the message was not read');
      expect(server.child.exitCode).toBeNull();
    } finally {
      server.child.stdin.end();
      await server.exit;
      repo.remove();
    }
  }, 30_000);
});
