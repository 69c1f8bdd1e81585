import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ServerDeps } from '../deps.js';
import { issueLine } from '../render.js';
import { answerSchema, bodyInput, issueOutput, keyInput, labelsInput, priorityInput, settableStatusInput, titleInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const updateIssueInput = z.strictObject({
  key: keyInput,
  title: titleInput.optional().describe('New title.'),
  body: bodyInput.optional(),
  priority: priorityInput.optional(),
  labels: labelsInput.optional().describe('Replaces all labels.'),
  status: settableStatusInput.optional().describe('For triage (e.g. cancelled); finish work with done instead.'),
});

export const updateIssueOutput = answerSchema({ issue: issueOutput });

/** Edits an issue's fields. */
export function registerUpdateIssueTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'update_issue',
    description: 'Change an issue\'s fields. Needs no lease and renews none.',
    input: updateIssueInput,
    output: updateIssueOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: (core, input) => core.updateIssue(input),
    render: (value) => `Updated ${issueLine(value.issue)}.`,
  });
}
