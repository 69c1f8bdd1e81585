import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { issueLine } from '../render.js';
import { answerSchema, claimTokenInput, issueOutput, keyInput, textInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const doneInput = z.strictObject({
  key: keyInput,
  claimToken: claimTokenInput,
  summary: textInput(LIMITS.summary).optional().describe('What was done; recorded with the issue.'),
});

export const doneOutput = answerSchema({ issue: issueOutput });

/** Finishes an issue. */
export function registerDoneTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'done',
    description:
      'Finish the issue once the work is committed on its branch: status done (review if the repository ' +
      'requires review) and the lease is released. CLAIM_LOST: your lease ended or was taken; the finish is not ' +
      'recorded, do not retry: take new work. CLAIM_MISMATCH: claim_issue with this token, then done with the new one.',
    input: doneInput,
    output: doneOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.done(input),
    render: (value) => `Finished ${issueLine(value.issue)}.`,
  });
}
