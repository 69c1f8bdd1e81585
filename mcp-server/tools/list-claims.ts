import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { claimViewLine } from '../render.js';
import { answerSchema } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const listClaimsInput = z.strictObject({});

const claimOutput = z.object({
  key: z.string(),
  agent: z.string(),
  session: z.string(),
  branch: z.string(),
  expiresAt: z.string(),
  secondsLeft: z.number(),
  lastActiveAt: z.string().nullable(),
});

export const listClaimsOutput = answerSchema({ claims: z.array(claimOutput) });

/** Lists every live lease. */
export function registerListClaimsTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'list_claims',
    description: 'Every live lease: who holds which issue, on which branch and worktree, until when, with its checkpoint.',
    input: listClaimsInput,
    output: listClaimsOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: (core) => core.listClaims(),
    render: (value) =>
      value.claims.length === 0 ? 'No live leases.' : [`${value.claims.length} live lease(s):`, ...value.claims.map(claimViewLine)].join('\n'),
  });
}
