import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { claimText } from '../render.js';
import { answerSchema, claimFields, keyInput, optionalClaimTokenInput, roleInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const claimIssueInput = z.strictObject({
  key: keyInput,
  claimToken: optionalClaimTokenInput.describe(
    'Only after a restart: the token your previous session held, to take that lease over.',
  ),
  role: roleInput.optional().describe('"reviewer" to claim an issue in review; default "worker".'),
});

export const claimIssueOutput = answerSchema(claimFields);

/** Claims one issue by key, or takes a lease over after a restart. */
export function registerClaimIssueTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'claim_issue',
    description:
      'Claim one issue by key (answers like next_issue); for an issue you hold, returns your lease again. After a ' +
      'restart, pass the claimToken you held: same lease, fresh token, checkpoint kept. ALREADY_CLAIMED, BLOCKED, ' +
      'NOT_READY: take other work. FORBIDDEN: not your token. CLAIM_LOST: that token is dead; claim without it.',
    input: claimIssueInput,
    output: claimIssueOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.claimIssue(input),
    render: claimText,
    leases: (value) => [value.lease],
  });
}
