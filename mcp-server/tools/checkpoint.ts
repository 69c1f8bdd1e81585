import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { checkpointLines, leaseLines, overlapLines } from '../render.js';
import {
  answerSchema,
  checkpointOutput,
  claimTokenInput,
  keyInput,
  leaseOutput,
  stateInput,
  textInput,
} from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const checkpointInput = z.strictObject({
  key: keyInput,
  claimToken: claimTokenInput,
  note: textInput(LIMITS.note).describe('What is done, what is next: enough for another agent to resume.'),
  state: stateInput.optional().describe('Optional JSON object for resuming (e.g. steps done, files touched).'),
});

export const checkpointOutputSchema = answerSchema({ lease: leaseOutput, checkpoint: checkpointOutput });

/** Records progress and renews the lease. */
export function registerCheckpointTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'checkpoint',
    description:
      'Record progress and renew the lease (same reset as heartbeat). Call at each milestone. The checkpoint ' +
      'survives release, expiry and restart: whoever claims the issue next gets it. The git HEAD, branch and ' +
      'changed files are recorded too; overlaps lists live claims elsewhere touching the same files. Errors as ' +
      'heartbeat; a refused checkpoint stores nothing.',
    input: checkpointInput,
    output: checkpointOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.checkpoint(input),
    render: (value) =>
      [`Checkpoint saved on ${value.lease.key}.`, ...checkpointLines(value.checkpoint), ...overlapLines(value.overlaps), ...leaseLines(value.lease)].join('\n'),
    leases: (value) => [value.lease],
  });
}
