import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { DrainingTransport } from '../../mcp-server/draining-transport.js';
import { FOLLOW_AFTER_IDLE_MS, followWhileIdle } from '../../mcp-server/idle-follow.js';

describe('followWhileIdle', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** What `follow` was told, for a session whose copy is `followable`. */
  function session(followable = true) {
    const told: boolean[] = [];
    return { told, follow: (on: boolean) => told.push(on), followable: () => followable };
  }

  test('follows once the client has had nothing under way for a while, and stops at its next request', () => {
    vi.useFakeTimers();
    const followed = session();
    const { told } = followed;
    const idle = followWhileIdle(followed);
    idle(true);
    vi.advanceTimersByTime(FOLLOW_AFTER_IDLE_MS - 1);
    expect(told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual([true]);
    idle(false);
    expect(told).toEqual([true, false]);
  });

  test('a client calling back to back is never followed', () => {
    vi.useFakeTimers();
    const followed = session();
    const { told } = followed;
    const idle = followWhileIdle(followed);
    for (let i = 0; i < 10; i++) {
      idle(true);
      vi.advanceTimersByTime(FOLLOW_AFTER_IDLE_MS - 1);
      idle(false);
    }
    vi.advanceTimersByTime(10 * FOLLOW_AFTER_IDLE_MS);
    expect(told).toEqual([]);
  });

  test('sets no timer for a copy that would not follow', () => {
    vi.useFakeTimers();
    const followed = session(false);
    const idle = followWhileIdle(followed);
    idle(true);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * FOLLOW_AFTER_IDLE_MS);
    idle(false);
    expect(followed.told).toEqual([]);
  });
});

describe('DrainingTransport.onidle', () => {
  test('says busy at the first request under way and idle when the last one is answered', async () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const transport = new DrainingTransport(server);
    const told: boolean[] = [];
    transport.onidle = (idle) => told.push(idle);
    transport.onmessage = () => {};
    await Promise.all([transport.start(), client.start()]);
    const request = (id: number) => client.send({ jsonrpc: '2.0', id, method: 'ping' } as JSONRPCMessage);

    await request(1);
    await request(2);
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
    expect(told).toEqual([false]);
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(told).toEqual([false]);
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    expect(told).toEqual([false, true]);
    await request(3);
    expect(told).toEqual([false, true, false]);
  });
});
