import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { summaryLine } from '../render.js';
import { answerSchema, issueOutput, statusInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const listIssuesInput = z.strictObject({
  status: statusInput.optional().describe('Only this status.'),
  label: z.string().trim().min(1).max(LIMITS.label).optional().describe('Only issues with this label.'),
  ready: z.boolean().optional().describe('true: only issues claimable now.'),
  text: z.string().trim().min(1).max(LIMITS.title).optional().describe('Text in the title or body; case is ignored (for A–Z at least).'),
  limit: z.number().int().min(1).max(LIMITS.listMax).optional().describe(`Page size, default ${LIMITS.listDefault}.`),
  cursor: z.string().min(1).max(LIMITS.requestId).optional().describe('nextCursor of the previous page.'),
});

export const listIssuesOutput = answerSchema({
  issues: z.array(issueOutput.extend({ held: z.boolean(), attention: z.string().optional() })),
  nextCursor: z.string().nullable(),
});

/** Lists issues, filtered and paged. */
export function registerListIssuesTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'list_issues',
    description: 'List issues, newest first, filtered; page on with nextCursor. Bodies are left out: get_issue reads one.',
    input: listIssuesInput,
    output: listIssuesOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.listIssues(input),
    render: (value) =>
      [
        value.issues.length === 0 ? 'No issues match.' : `${value.issues.length} issue(s):`,
        ...value.issues.map(summaryLine),
        ...(value.nextCursor ? [`More: cursor ${value.nextCursor}`] : []),
      ].join('\n'),
  });
}
