import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import packageJson from '../package.json';
import type { ServerDeps } from './deps.js';
import { registerWorkLoopPrompt } from './prompt.js';
import { registerIssueResource } from './resources.js';
import { answerToolsList } from './tool-listing.js';
import { registerTools } from './tools/index.js';

const INSTRUCTIONS =
  'Baton hands each issue to one agent with a claim token and a lease. Take work with next_issue, renew with ' +
  'checkpoint or heartbeat, finish with done. The work_loop prompt has the whole loop.';

export interface BatonServer {
  readonly server: McpServer;
  /** Connects the server to `transport`. */
  connect(transport: Transport): Promise<void>;
}

/** The Baton MCP server with every tool, the issue resources and the work-loop prompt; not yet connected. */
export function createServer(deps: ServerDeps): BatonServer {
  const server = new McpServer(
    { name: 'baton', title: 'Baton', version: packageJson.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  const tools = registerTools(server, deps);
  answerToolsList(server, tools);
  registerIssueResource(server, deps);
  registerWorkLoopPrompt(server);
  return { server, connect: (transport) => server.connect(transport) };
}
