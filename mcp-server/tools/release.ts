import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { issueLine } from '../render.js';
import { answerSchema, claimTokenInput, issueOutput, keyInput, textInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const releaseInput = z.strictObject({
  key: keyInput,
  claimToken: claimTokenInput,
  note: textInput(LIMITS.note).optional().describe('Why you stop; recorded in the activity log.'),
});

export const releaseOutput = answerSchema({ issue: issueOutput });

/** Gives an unfinished issue back. */
export function registerReleaseTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'release',
    description:
      'Stop working on an unfinished issue: the lease ends, status stays doing and anyone may claim it; ' +
      'the checkpoint stays for them (checkpoint first). CLAIM_LOST: it was no longer yours; nothing to do.',
    input: releaseInput,
    output: releaseOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.release(input),
    render: (value) => `Released ${issueLine(value.issue)}; it can be claimed again.`,
  });
}
