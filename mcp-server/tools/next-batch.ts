import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { claimText } from '../render.js';
import { answerSchema, claimFields, labelsInput, requestIdInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const nextBatchInput = z.strictObject({
  max: z.number().int().min(1).max(LIMITS.batchMax).describe(`How many issues at most (1…${LIMITS.batchMax}).`),
  labels: labelsInput.optional().describe('Only issues carrying all of these labels.'),
  requestId: requestIdInput.optional(),
});

export const nextBatchOutput = answerSchema({ items: z.array(z.object(claimFields)) });

/** Claims several independent ready issues in one atomic step. */
export function registerNextBatchTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'next_batch',
    description:
      'Claim up to max ready issues at once, in dispatch order, none blocking another, so they can be worked in ' +
      'parallel (e.g. by sub-agents). Each item is a lease like next_issue gives, with its own claimToken, to ' +
      'renew and finish one by one. An empty list = nothing is ready.',
    input: nextBatchInput,
    output: nextBatchOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.nextBatch(input),
    render: (value) =>
      value.items.length === 0
        ? 'Nothing is ready to claim.'
        : [`Claimed ${value.items.length} issue(s).`, ...value.items.map((item) => `\n${claimText(item)}`)].join('\n'),
    leases: (value) => value.items.map((item) => item.lease),
  });
}
