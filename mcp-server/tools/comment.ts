import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LIMITS } from '../../shared/limits.js';
import type { ServerDeps } from '../deps.js';
import { commentLine } from '../render.js';
import { answerSchema, commentOutput, keyInput, textInput } from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const commentInput = z.strictObject({
  key: keyInput,
  text: textInput(LIMITS.comment).describe('Markdown.'),
});

export const commentOutputSchema = answerSchema({ comment: commentOutput });

/** Adds a comment to an issue. */
export function registerCommentTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'comment',
    description: 'Add a comment to an issue: a note for people or the next agent. It does not renew your lease.',
    input: commentInput,
    output: commentOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (core, input) => core.comment(input),
    render: (value) => `Commented: ${commentLine(value.comment)}`,
  });
}
