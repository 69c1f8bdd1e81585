import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { leaseLines } from '../render.js';
import { answerSchema, claimTokenInput, keyInput, leaseOutput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const heartbeatInput = z.strictObject({ key: keyInput, claimToken: claimTokenInput });

export const heartbeatOutput = answerSchema({ lease: leaseOutput });

/** Renews a lease. */
export function registerHeartbeatTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'heartbeat',
    description:
      'Renew your lease: expiry becomes now + lease length (a reset, not added on). Call about every third of the ' +
      'lease while working; at milestones checkpoint instead (it renews too). Comments and edits do not renew. ' +
      'CLAIM_LOST: stop work on the issue, take new work. CLAIM_MISMATCH: claim_issue with this token first.',
    input: heartbeatInput,
    output: heartbeatOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.heartbeat(input),
    render: (value) => [`Renewed ${value.lease.key}.`, ...leaseLines(value.lease)].join('\n'),
    leases: (value) => [value.lease],
  });
}
