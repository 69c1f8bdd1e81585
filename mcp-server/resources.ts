import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { KEY_PATTERN } from '../shared/limits.js';
import type { ServerDeps } from './deps.js';
import { issueDetailText } from './tools/get-issue.js';

/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
/** How many issues resources/list offers; the rest are read by key. */
const LISTED = 100;

/** Issues as resources: `baton://issue/{key}`, the same reading as get_issue, without any token. */
export function registerIssueResource(server: McpServer, deps: ServerDeps): void {
  server.registerResource(
    'issue',
    new ResourceTemplate('baton://issue/{key}', {
      list: async () => {
        const core = await deps.core();
        const page = await core.listIssues({ limit: LISTED });
        if (!page.ok) return { resources: [] };
        return {
          resources: page.value.issues.map((issue) => ({
            uri: `baton://issue/${issue.key}`,
            name: issue.key,
            title: `${issue.key} ${issue.title}`,
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    {
      title: 'Baton issue',
      description: 'One issue: body, lease holder, checkpoint, relations, comments and recent activity.',
      mimeType: 'text/markdown',
    },
    async (uri, variables) => {
      const key = String(Array.isArray(variables.key) ? variables.key[0] : variables.key);
      if (!KEY_PATTERN.test(key)) throw new McpError(ErrorCode.InvalidParams, `Not an issue key: ${key}`);
      const core = await deps.core();
      const detail = await core.getIssue({ key });
      if (!detail.ok) {
        const code = detail.error.code === 'NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InternalError;
        throw new McpError(code, detail.error.message, { error: detail.error });
      }
      // A resource may be attached or shown beyond this session's answers: never with a token.
      const lease = detail.value.lease && { ...detail.value.lease, claimToken: undefined };
      const text = issueDetailText({ ...detail.value, lease });
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
    },
  );
}
