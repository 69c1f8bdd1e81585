import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readMessage } from '../../mcp-server/read-message.js';

const call = (over: Record<string, unknown> = {}, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'heartbeat', arguments: { key: 'BAT-1' }, ...params }, ...over });

/** Lines the SDK takes and lines it refuses, plain tool calls and everything around them. */
const LINES: Record<string, string> = {
  'a plain call': call(),
  'a call with a string id': call({ id: 'req-1' }),
  'a call without arguments': call({ params: { name: 'list_claims' } }),
  'a call with arguments that are not an object': call({}, { arguments: [1, 2] }),
  'a call with a progress token': call({}, { _meta: { progressToken: 3 } }),
  'a call with a string progress token': call({}, { _meta: { progressToken: 'p' } }),
  'a call with other _meta': call({}, { _meta: { progressToken: 3, 'io.modelcontextprotocol/related-task': { taskId: 't' } } }),
  'a call asking for a task': call({}, { task: { ttl: 1000 } }),
  'a call without params': call({ params: undefined }),
  'a ping': JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  'a notification': JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } }),
  'a response': JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }),
  'an error response': JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -1, message: 'no' } }),
  'a fractional id': call({ id: 1.5 }),
  'an id past the safe integers': call({ id: 2 ** 60 }),
  'a null id': call({ id: null }),
  'another member': call({ extra: true }),
  'another version': call({ jsonrpc: '1.0' }),
  'params as an array': call({ params: [1] }),
  'params as null': call({ params: null }),
  '_meta as null': call({}, { _meta: null }),
  'a fractional progress token': call({}, { _meta: { progressToken: 0.5 } }),
  'a method that is not a string': call({ method: 3 }),
  'an array': JSON.stringify([JSON.parse(call())]),
  'a string': JSON.stringify('tools/call'),
  'broken JSON': '{"jsonrpc":"2.0",',
};

function outcome(read: (line: string) => unknown, line: string) {
  try {
    return { message: read(line) };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

describe('readMessage', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each(Object.entries(LINES))('reads %s as the SDK reads it', (_, line) => {
    expect(outcome(readMessage, line)).toEqual(outcome(deserializeMessage, line));
  });

  it('reads a plain tool call without the schema, and everything else with it', () => {
    const parse = vi.spyOn(JSONRPCMessageSchema, 'parse');
    readMessage(LINES['a plain call']);
    readMessage(LINES['a call with a progress token']);
    readMessage(LINES['a call asking for a task']);
    expect(parse).not.toHaveBeenCalled();
    readMessage(LINES['a ping']);
    readMessage(LINES['a call without params']);
    readMessage(LINES['a call with other _meta']);
    expect(() => readMessage(LINES['another member'])).toThrow();
    expect(parse).toHaveBeenCalledTimes(4);
  });
});
