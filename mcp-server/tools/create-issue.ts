import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { issueLine } from '../render.js';
import { answerSchema, bodyInput, issueOutput, keyInput, labelsInput, priorityInput, titleInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const createIssueInput = z.strictObject({
  title: titleInput.describe(`One line, at most ${LIMITS.title} characters.`),
  body: bodyInput.optional(),
  priority: priorityInput.optional().describe('0 highest … 4 lowest; default 2.'),
  labels: labelsInput.optional().describe('Labels, e.g. ["backend"].'),
  blockedBy: z.array(keyInput).max(LIMITS.relationsPerCall).optional().describe('Keys of issues that must be done first.'),
  parent: keyInput.optional().describe('Key of the parent issue.'),
});

export const createIssueOutput = answerSchema({ issue: issueOutput });

/** Creates an issue. */
export function registerCreateIssueTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'create_issue',
    description:
      'Create an issue in todo (e.g. follow-up work you found). It is not claimed. NOT_FOUND: a blockedBy or ' +
      'parent key names no issue.',
    input: createIssueInput,
    output: createIssueOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.createIssue(input),
    render: (value) => `Created ${issueLine(value.issue)}.`,
  });
}
