import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ClaimStatus } from '../../shared/types.js';
import type { ServerDeps } from '../deps.js';
import { answerSchema, keyInput, optionalClaimTokenInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const checkClaimInput = z.strictObject({
  key: keyInput,
  claimToken: optionalClaimTokenInput.describe('Optional: also check that this token is the live one.'),
});

const time = z.string().nullable();
export const checkClaimOutput = answerSchema({
  held: z.boolean(),
  youHold: z.boolean(),
  holder: z.object({ agent: z.string(), session: z.string() }).nullable(),
  expiresAt: time,
  lastRenewedAt: time,
  secondsLeft: z.number().nullable(),
});

function render(status: ClaimStatus): string {
  if (!status.held || !status.holder) return 'Not held: the issue has no live lease.';
  const who = status.youHold ? 'you (this session)' : `${status.holder.agent} (${status.holder.session})`;
  return `Held by ${who}; expires ${status.expiresAt} (${status.secondsLeft}s left), last renewed ${status.lastRenewedAt}, renewer ${status.renewer ?? 'none'}, fence ${status.fence}.`;
}

/** Reads who holds an issue's lease; renews nothing. */
export function registerCheckClaimTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'check_claim',
    description:
      'Who holds an issue\'s lease and until when; renews nothing. youHold: this session holds it. ' +
      'lastRenewedAt moving between two calls proves something renews you; frozen means nothing does. ' +
      'holder.session "other_session" with your own agent name means you restarted: call claim_issue with your old token.',
    input: checkClaimInput,
    output: checkClaimOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.checkClaim(input),
    render,
  });
}
