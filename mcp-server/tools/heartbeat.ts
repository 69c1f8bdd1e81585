import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { leaseLines } from '../render.js';
import { answerSchema, claimTokenInput, keyInput, leaseOutput } from '../schemas.js';
import { registerBatonTool } from '../tool.js';

export const heartbeatInput = z.strictObject({ key: keyInput, claimToken: claimTokenInput });

export const heartbeatOutput = answerSchema({ lease: leaseOutput });

/** Renews a lease. */
export function registerHeartbeatTool(server: McpServer, deps: ServerDeps): void {
  registerBatonTool(server, deps, {
    name: 'heartbeat',
    title: 'Renew a lease',
    description:
      'Renew your lease: expiry resets to now + lease length (a reset, not added on). Call well before ' +
      'expiresAt, e.g. every third of the lease, while you work; at a milestone prefer checkpoint, which renews ' +
      'the same and leaves a note. Comments and edits do not renew. CLAIM_LOST: stop work on the issue, take ' +
      'new work. CLAIM_MISMATCH: claim_issue with this token first. FORBIDDEN: not your token.',
    input: heartbeatInput,
    output: heartbeatOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.heartbeat(input),
    render: (value) => [`Renewed ${value.lease.key}.`, ...leaseLines(value.lease)].join('\n'),
    leases: (value) => [value.lease],
  });
}
