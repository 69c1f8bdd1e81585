import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { issueLine } from '../render.js';
import { answerSchema, claimTokenInput, issueOutput, keyInput, textInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const submitForReviewInput = z.strictObject({
  key: keyInput,
  claimToken: claimTokenInput,
  summary: textInput(LIMITS.summary).describe('What changed and what the reviewer should check.'),
});

export const submitForReviewOutput = answerSchema({ issue: issueOutput });

/** Hands finished work to a reviewer. */
export function registerSubmitForReviewTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'submit_for_review',
    description:
      'Hand finished work to a reviewer: status review, your lease is released. Errors as done.',
    input: submitForReviewInput,
    output: submitForReviewOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.submitForReview(input),
    render: (value) => `Submitted ${issueLine(value.issue)} for review.`,
  });
}
