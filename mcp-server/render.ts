import type {
  ActivityEvent,
  Checkpoint,
  ClaimResult,
  ClaimView,
  Comment,
  Issue,
  IssueSummary,
  Lease,
  Relations,
} from '../shared/types.js';

/*
 * Short text renderings of answers, for people and for clients that show a model only
 * the text: each carries what an agent needs to act (key, branch, token of its own
 * lease, expiry, checkpoint), never a token of anyone else's.
 */

export function issueLine(issue: Pick<Issue, 'key' | 'title' | 'status' | 'priority' | 'labels'>): string {
  const labels = issue.labels.length > 0 ? ` [${issue.labels.join(', ')}]` : '';
  return `${issue.key} "${issue.title}" (${issue.status}, P${issue.priority})${labels}`;
}

export function summaryLine(issue: IssueSummary): string {
  const blocked = issue.blockedBy.length > 0 ? ` blocked by ${issue.blockedBy.join(', ')}` : '';
  return `${issueLine(issue)}${issue.held ? ' held' : ''}${blocked}`;
}

export function leaseLines(lease: Lease): string[] {
  const lines = [
    `branch: ${lease.branch}`,
    `lease: held by ${lease.agent}, expires ${lease.expiresAt}, last renewed ${lease.lastRenewedAt}, fence ${lease.fence}, renewer ${lease.renewer ?? 'none'}`,
  ];
  if (lease.claimToken) lines.push(`claimToken: ${lease.claimToken}`);
  return lines;
}

export function checkpointLines(checkpoint: Checkpoint | null): string[] {
  if (!checkpoint) return [];
  const lines = [`checkpoint (${checkpoint.agent}, ${checkpoint.at}): ${checkpoint.note}`];
  if (checkpoint.state) lines.push(`state: ${JSON.stringify(checkpoint.state)}`);
  if (checkpoint.git) {
    const dirty = checkpoint.git.dirty.length > 0 ? `, dirty: ${checkpoint.git.dirty.join(' ')}` : ', clean';
    lines.push(`git: ${checkpoint.git.branch ?? '(detached)'} @ ${checkpoint.git.head}${dirty}`);
  }
  return lines;
}

export function relationLines(relations: Relations): string[] {
  const parts: string[] = [];
  if (relations.blockedBy.length > 0) parts.push(`blocked by ${relations.blockedBy.join(', ')}`);
  if (relations.blocks.length > 0) parts.push(`blocks ${relations.blocks.join(', ')}`);
  if (relations.relatesTo.length > 0) parts.push(`relates to ${relations.relatesTo.join(', ')}`);
  if (relations.parent) parts.push(`parent ${relations.parent}`);
  if (relations.children.length > 0) parts.push(`children ${relations.children.join(', ')}`);
  return parts.length > 0 ? [parts.join('; ')] : [];
}

/** A claim as its holder reads it: everything needed to start or resume the work. */
export function claimText(claim: ClaimResult): string {
  return [
    `${claim.resumed ? 'Resumed' : 'Claimed'} ${issueLine(claim.issue)}.`,
    ...leaseLines(claim.lease),
    ...checkpointLines(claim.checkpoint),
    ...relationLines(claim.issue.relations),
    'Renew with heartbeat or checkpoint before the lease expires.',
    ...(claim.issue.body ? ['', claim.issue.body] : []),
  ].join('\n');
}

export function claimViewLine(claim: ClaimView): string {
  return `${claim.key} "${claim.title}" held by ${claim.agent} (session ${claim.session}) on ${claim.branch}, ${claim.secondsLeft}s left, renewer ${claim.renewer ?? 'none'}, last active ${claim.lastActiveAt ?? 'unknown'}`;
}

export function commentLine(comment: Comment): string {
  return `#${comment.id} ${comment.agent} at ${comment.at}: ${comment.text}`;
}

export function eventLine(event: ActivityEvent): string {
  return `${event.at} ${event.key ?? '-'} ${event.type} by ${event.agent}${event.detail ? `: ${event.detail}` : ''}`;
}
