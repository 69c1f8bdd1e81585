import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listTools } from './tool-listing.js';
import { registerTools } from './tools/index.js';

/*
 * Run by esbuild.mjs while building: renders the tools/list answer once, for the bundle to
 * carry (tool-listing.ts). Registering needs a server and dependencies; no tool runs here.
 */

const unused = (): never => {
  throw new Error('no tool runs while the listing is rendered');
};

export const listing = listTools(registerTools(new McpServer({ name: 'baton', version: '0' }), { core: unused, touched: unused }));
