import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { issueLine, relationLines } from '../render.js';
import { answerSchema, issueOutput, keyInput, relationsOutput, relationTypeInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const relateInput = z.strictObject({
  key: keyInput,
  type: relationTypeInput.describe('key blocks other | key blockedBy other | relatesTo | parent (other becomes key\'s parent).'),
  other: keyInput.describe('The other issue\'s key.'),
  remove: z.boolean().optional().describe('true removes the relation instead.'),
});

export const relateOutput = answerSchema({ issue: issueOutput, relations: relationsOutput });

/** Adds or removes a relation between two issues. */
export function registerRelateTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'relate',
    description: 'Add or remove a relation between two issues. A blocked issue is not dispatched until its blockers are done. CYCLE: refused, it would make a dependency cycle.',
    input: relateInput,
    output: relateOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.relate(input),
    render: (value) => [`Relations of ${issueLine(value.issue)}:`, ...relationLines(value.relations)].join('\n'),
  });
}
