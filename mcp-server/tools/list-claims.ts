import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { claimViewLine } from '../render.js';
import { answerSchema, checkpointOutput } from '../schemas.js';
import { registerBatonTool } from '../tool.js';

export const listClaimsInput = z.strictObject({});

const claimOutput = z
  .object({
    key: z.string(),
    title: z.string(),
    agent: z.string(),
    session: z.string(),
    branch: z.string(),
    worktree: z.string().nullable(),
    claimedAt: z.string(),
    expiresAt: z.string(),
    lastRenewedAt: z.string(),
    renewer: z.string().nullable(),
    secondsLeft: z.number(),
    checkpoint: checkpointOutput.nullable(),
  })
  .loose();

export const listClaimsOutput = answerSchema({ claims: z.array(claimOutput) });

/** Lists every live lease. */
export function registerListClaimsTool(server: McpServer, deps: ServerDeps): void {
  registerBatonTool(server, deps, {
    name: 'list_claims',
    title: 'List live leases',
    description: 'Every live lease: who holds which issue, on which branch and worktree, until when, with its checkpoint.',
    input: listClaimsInput,
    output: listClaimsOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: (core) => core.listClaims(),
    render: (value) =>
      value.claims.length === 0 ? 'No live leases.' : [`${value.claims.length} live lease(s):`, ...value.claims.map(claimViewLine)].join('\n'),
  });
}
