import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { ListedTool } from '../../mcp-server/tool.js';
import { ToolCallTransport } from '../../mcp-server/tool-calls.js';
import { sleep } from '../helpers/wait.js';

/** A ToolCallTransport over one end of a linked pair, with what reached the SDK's side and what came back. */
async function linked(calls: Record<string, (args: unknown) => Promise<CallToolResult>>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const tools = Object.entries(calls).map(([name, call]) => ({ name, call }) as unknown as ListedTool);
  const transport = new ToolCallTransport(serverSide, tools);
  const passedOn: JSONRPCMessage[] = [];
  const answers: JSONRPCMessage[] = [];
  transport.onmessage = (message) => passedOn.push(message);
  clientSide.onmessage = (message) => answers.push(message);
  await Promise.all([transport.start(), clientSide.start()]);
  const send = (message: Record<string, unknown>) => clientSide.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  return { send, passedOn, answers };
}

const settle = () => sleep(10);

describe('ToolCallTransport', () => {
  it("answers a call of a Baton tool with the tool's own answer, without passing it on", async () => {
    const { send, passedOn, answers } = await linked({
      echo: async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
    });
    await send({ id: 1, method: 'tools/call', params: { name: 'echo', arguments: { a: 1 } } });
    await settle();
    expect(passedOn).toEqual([]);
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"a":1}' }] } }]);
  });

  it('passes on every other message: other methods, unknown tools, calls asking to run as a task', async () => {
    const { send, passedOn, answers } = await linked({ echo: async () => ({ content: [] }) });
    const others = [
      { id: 1, method: 'tools/list' },
      { id: 2, method: 'tools/call', params: { name: 'nothing', arguments: {} } },
      { id: 3, method: 'tools/call', params: { name: 'echo', arguments: {}, task: { ttl: 1000 } } },
      { method: 'notifications/initialized' },
      { id: 4, method: 'tools/call' },
    ];
    for (const message of others) await send(message);
    await settle();
    expect(passedOn).toEqual(others.map((message) => ({ jsonrpc: '2.0', ...message })));
    expect(answers).toEqual([]);
  });

  it('answers a tool that throws as an error result with its message, as the SDK does', async () => {
    const { send, answers } = await linked({
      broken: async () => {
        throw new Error('the core broke');
      },
    });
    await send({ id: 'a', method: 'tools/call', params: { name: 'broken', arguments: {} } });
    await settle();
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 'a', result: { isError: true, content: [{ type: 'text', text: 'the core broke' }] } },
    ]);
  });

  it('gives no answer to a call the client cancelled while it ran, and still answers the others', async () => {
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const { send, passedOn, answers } = await linked({
      slow: async () => {
        await slow;
        return { content: [{ type: 'text', text: 'late' }] };
      },
    });
    await send({ id: 1, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await send({ id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await send({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'no longer needed' } });
    finish();
    await settle();
    expect(answers.map((answer) => ('id' in answer ? answer.id : undefined))).toEqual([2]);
    // The SDK sees the notification too, as it would without this transport.
    expect(passedOn.map((message) => ('method' in message ? message.method : undefined))).toEqual(['notifications/cancelled']);
  });
});
