import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerDeps } from '../deps.js';
import type { ListedTool } from '../tool.js';
import { registerActivityTool } from './activity.js';
import { registerCheckClaimTool } from './check-claim.js';
import { registerCheckpointTool } from './checkpoint.js';
import { registerClaimIssueTool } from './claim-issue.js';
import { registerCommentTool } from './comment.js';
import { registerCreateIssueTool } from './create-issue.js';
import { registerDoneTool } from './done.js';
import { registerGetIssueTool } from './get-issue.js';
import { registerHeartbeatTool } from './heartbeat.js';
import { registerListClaimsTool } from './list-claims.js';
import { registerListIssuesTool } from './list-issues.js';
import { registerNextBatchTool } from './next-batch.js';
import { registerNextIssueTool } from './next-issue.js';
import { registerRelateTool } from './relate.js';
import { registerReleaseTool } from './release.js';
import { registerReviewTool } from './review.js';
import { registerSubmitForReviewTool } from './submit-for-review.js';
import { registerUpdateIssueTool } from './update-issue.js';

/** Registers every tool of docs/protocol.md section 5; returns them in the order tools/list shows them. */
export function registerTools(server: McpServer, deps: ServerDeps): ListedTool[] {
  return [
    registerNextIssueTool(server, deps),
    registerNextBatchTool(server, deps),
    registerClaimIssueTool(server, deps),
    registerCheckClaimTool(server, deps),
    registerHeartbeatTool(server, deps),
    registerCheckpointTool(server, deps),
    registerReleaseTool(server, deps),
    registerDoneTool(server, deps),
    registerSubmitForReviewTool(server, deps),
    registerReviewTool(server, deps),
    registerCreateIssueTool(server, deps),
    registerUpdateIssueTool(server, deps),
    registerGetIssueTool(server, deps),
    registerListIssuesTool(server, deps),
    registerRelateTool(server, deps),
    registerCommentTool(server, deps),
    registerListClaimsTool(server, deps),
    registerActivityTool(server, deps),
  ];
}
