import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { issueLine } from '../render.js';
import { answerSchema, claimTokenInput, issueOutput, keyInput, textInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const reviewInput = z.strictObject({
  key: keyInput,
  claimToken: claimTokenInput,
  verdict: z.enum(['approve', 'changes']).describe('approve: done. changes: back to todo for rework.'),
  note: textInput(LIMITS.note).optional().describe('What to change; becomes a comment.'),
});

export const reviewOutput = answerSchema({ issue: issueOutput });

/** Records a reviewer's verdict. */
export function registerReviewTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'review',
    description:
      'Give the verdict on an issue in review that you claimed as reviewer (next_issue or claim_issue with ' +
      'role "reviewer"); ends your lease. Errors as done.',
    input: reviewInput,
    output: reviewOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.review(input),
    render: (value) => `Reviewed: ${issueLine(value.issue)}.`,
  });
}
