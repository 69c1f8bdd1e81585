import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import packageJson from '../package.json';
import type { ServerDeps } from './deps.js';
import { registerWorkLoopPrompt } from './prompt.js';
import { registerIssueResource } from './resources.js';
import { answerToolsList } from './tool-listing.js';
import { registerTools } from './tools/index.js';

const INSTRUCTIONS =
  'Baton hands each issue to one agent with a claim token and a lease. Take work with next_issue, renew with ' +
  'checkpoint or heartbeat, finish with done. The work_loop prompt has the whole loop.';

/** The Baton MCP server with every tool, the issue resources and the work-loop prompt; not yet connected. */
export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer(
    { name: 'baton', title: 'Baton', version: packageJson.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  answerToolsList(server, registerTools(server, deps));
  registerIssueResource(server, deps);
  registerWorkLoopPrompt(server);
  return server;
}
