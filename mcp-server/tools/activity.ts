import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { eventLine } from '../render.js';
import { answerSchema, eventOutput, keyInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const activityInput = z.strictObject({
  key: keyInput.optional().describe('Only this issue\'s events; all issues when omitted.'),
  limit: z.number().int().min(1).max(LIMITS.activityMax).optional().describe(`How many, default ${LIMITS.activityDefault}.`),
});

export const activityOutput = answerSchema({ events: z.array(eventOutput) });

/** Reads the activity log. */
export function registerActivityTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'activity',
    description: 'The activity log, newest first: claims, renewals by checkpoint, reclaims, releases, status changes, comments.',
    input: activityInput,
    output: activityOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.activity(input),
    render: (value) => (value.events.length === 0 ? 'No activity.' : value.events.map(eventLine).join('\n')),
  });
}
