import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { IssueDetail } from '../../shared/types.js';
import type { ServerDeps } from '../deps.js';
import { checkpointLines, commentLine, eventLine, issueLine, leaseLines, overlapLines, relationLines } from '../render.js';
import {
  answerSchema,
  checkpointOutput,
  issueOutput,
  keyInput,
  leaseOutput,
  relationsOutput,
} from '../schemas.js';
import { type ListedTool, registerBatonTool } from '../tool.js';

export const getIssueInput = z.strictObject({ key: keyInput });

export const getIssueOutput = answerSchema({
  issue: issueOutput,
  lease: leaseOutput.nullable(),
  checkpoint: checkpointOutput.nullable(),
  relations: relationsOutput,
  // Their items are the shapes the comment and activity tools declare.
  comments: z.array(z.object({})),
  activity: z.array(z.object({})),
});

/** The whole issue as an agent reads it; also the text of the `baton://issue/{key}` resource. */
export function issueDetailText(detail: IssueDetail): string {
  return [
    issueLine(detail.issue),
    ...(detail.lease ? leaseLines(detail.lease) : ['lease: none']),
    ...checkpointLines(detail.checkpoint),
    ...overlapLines(detail.overlaps),
    ...relationLines(detail.relations),
    ...(detail.issue.body ? ['', detail.issue.body] : []),
    ...(detail.comments.length > 0 ? ['', 'Comments:', ...detail.comments.map(commentLine)] : []),
    ...(detail.activity.length > 0 ? ['', 'Activity:', ...detail.activity.map(eventLine)] : []),
  ].join('\n');
}

/** Reads one issue in full. */
export function registerGetIssueTool(server: McpServer, deps: ServerDeps): ListedTool {
  return registerBatonTool(server, deps, {
    name: 'get_issue',
    description:
      'Read one issue in full (body, lease, checkpoint, relations, every comment, the 50 latest events), e.g. ' +
      'before working on it. Renews nothing.',
    input: getIssueInput,
    output: getIssueOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
    run: (core, input) => core.getIssue(input),
    render: issueDetailText,
  });
}
