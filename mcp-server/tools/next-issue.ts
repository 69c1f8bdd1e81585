import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ok, type Result } from '../../shared/result.js';
import type { ClaimResult } from '../../shared/types.js';
import type { ServerDeps } from '../deps.js';
import { claimText } from '../render.js';
import { answerSchema, claimFields, issueOutput, labelsInput, requestIdInput, roleInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const nextIssueInput = z.strictObject({
  labels: labelsInput.optional().describe('Only issues carrying all of these labels.'),
  role: roleInput.optional().describe('"worker" (default) takes todo work; "reviewer" takes issues in review.'),
  requestId: requestIdInput.optional(),
});

export const nextIssueOutput = answerSchema({ ...claimFields, issue: issueOutput.nullable() });

/** Claims the next ready issue in dispatch order. */
export function registerNextIssueTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'next_issue',
    description:
      'Call when you need work: claims the most urgent ready issue. The answer has claimToken (keep it: every lease call needs it), the ' +
      'branch to work on, expiresAt, and the last checkpoint (resumed: true = continue from it, do not restart). ' +
      '{ issue: null }: nothing is ready. Only heartbeat and checkpoint renew the lease.',
    input: nextIssueInput,
    output: nextIssueOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: async (core, input): Promise<Result<ClaimResult | { issue: null }>> => {
      const claimed = await core.nextIssue(input);
      if (!claimed.ok) return claimed;
      return ok(claimed.value ?? { issue: null });
    },
    render: (value) => (value.issue ? claimText(value) : 'Nothing is ready to claim.'),
    leases: (value) => (value.issue ? [value.lease] : []),
  });
}
