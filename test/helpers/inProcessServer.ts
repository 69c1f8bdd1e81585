import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Baton } from '../../shared/baton.js';
import type { Lease } from '../../shared/types.js';
import { createServer } from '../../mcp-server/server.js';

export interface InProcessServer {
  client: Client;
  /** The leases the server was told a call claimed or renewed, in order. */
  touched: Lease[];
  close(): Promise<void>;
}

/**
 * The Baton MCP server in this process, over a linked in-memory transport, driven by the
 * SDK's own Client: fast tests of the tools against any core (see `harness()`).
 */
export async function inProcessServer(core: Baton | (() => Promise<Baton>), clientName = 'test-agent'): Promise<InProcessServer> {
  const touched: Lease[] = [];
  const { server, connect } = createServer({
    core: typeof core === 'function' ? core : async () => core,
    touched: (leases) => touched.push(...leases),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: '1.0.0' });
  await Promise.all([connect(serverSide), client.connect(clientSide)]);
  // Once it has the listing, the client checks every answer's structuredContent against
  // the tool's outputSchema as published, as an agent's client would.
  await client.listTools();
  return {
    client,
    touched,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
