import type { ClaimView, IssueSummary } from '../../shared/types.js';
import { escapeMarkdown, firstLine, formatAgo, formatCountdown, formatPriority, formatTime, shortSha } from './format.js';
import { idleDuration, idleFor } from '../../shared/rules/renewal.js';
import { isKeptAliveBy, sessionOf, type IsAlive } from './renewPlan.js';
import type { BatonSnapshot } from './snapshot.js';
import type { ClaimNode, DetailNode, GroupId, GroupNode, IssueNode } from './treeNodes.js';

export interface TreeContext {
  /** Milliseconds since the epoch. */
  now: number;
  /** A claim with this many seconds left or fewer takes the warning colour. */
  warningSeconds: number;
  /** This window's renewer id, `vscode:<window>`. */
  renewer: string;
  isAlive: IsAlive;
}

const LABELS: Record<GroupId, string> = {
  attention: 'Needs attention',
  claimed: 'Claimed',
  doing: 'Doing (unheld)',
  ready: 'Ready',
  blocked: 'Blocked',
  review: 'In review',
  done: 'Done (recent)',
};

const COLLAPSED: ReadonlySet<GroupId> = new Set(['done']);

/** The order `next_issue` hands issues out in (docs/protocol.md section 3). */
export function byDispatchOrder(a: IssueSummary, b: IssueSummary): number {
  return a.effectivePriority - b.effectivePriority || a.priority - b.priority || a.createdAt.localeCompare(b.createdAt) || keyOrder(a.key, b.key);
}

function keyOrder(a: string, b: string): number {
  const [pa, na] = splitKey(a);
  const [pb, nb] = splitKey(b);
  return pa.localeCompare(pb) || na - nb;
}

function splitKey(key: string): [string, number] {
  const dash = key.lastIndexOf('-');
  return [key.slice(0, dash), Number(key.slice(dash + 1))];
}

type IssueGroup = Exclude<GroupId, 'claimed'>;

/**
 * The issue rows last built for each group, and the lists they were built from, kept by
 * the caller between builds: a group whose lists are the same arrays (sameAsBefore in
 * batonSource.ts keeps a list read again unchanged) keeps its rows rather than building
 * hundreds anew, and the tree provider then sees at once that it did not change.
 */
export type TreeMemo = Map<IssueGroup, { from: readonly unknown[]; rows: IssueNode[] }>;

/**
 * The groups of the Claims view, in order, leaving out empty ones: an empty list means
 * nothing to show, and the view shows its welcome text instead.
 */
export function buildTree(snapshot: BatonSnapshot, ctx: TreeContext, memo: TreeMemo = new Map()): GroupNode[] {
  const claims = [...snapshot.claims].sort((a, b) => a.expiresAt.localeCompare(b.expiresAt) || keyOrder(a.key, b.key));
  const rows = (id: IssueGroup, from: readonly unknown[], build: () => IssueNode[]): IssueNode[] => {
    const kept = memo.get(id);
    if (kept && kept.from.length === from.length && kept.from.every((list, i) => list === from[i])) return kept.rows;
    const built = build();
    memo.set(id, { from, rows: built });
    return built;
  };
  const issue = (id: IssueGroup, checkpointed: ReadonlySet<string> = new Set()) => (i: IssueSummary) => issueNode(id, i, checkpointed.has(i.key), ctx.now);
  const cut = new Set(snapshot.cut);
  const groups: GroupNode[] = [
    group('attention', rows('attention', [snapshot.stuck], () => [...snapshot.stuck].sort(byDispatchOrder).map(issue('attention'))), cut.has('stuck')),
    group('claimed', claims.map((c) => claimNode(c, snapshot, ctx))),
    group(
      'doing',
      rows('doing', [snapshot.doing, snapshot.checkpointed], () =>
        snapshot.doing.filter((i) => !i.held).sort(byDispatchOrder).map(issue('doing', new Set(snapshot.checkpointed))),
      ),
      cut.has('doing'),
    ),
    group('ready', rows('ready', [snapshot.ready], () => snapshot.ready.filter((i) => i.status === 'todo').map(issue('ready'))), cut.has('ready')),
    group('blocked', rows('blocked', [snapshot.blocked], () => [...snapshot.blocked].sort(byDispatchOrder).map(issue('blocked'))), cut.has('blocked')),
    group('review', rows('review', [snapshot.review], () => [...snapshot.review].sort(byDispatchOrder).map(issue('review'))), cut.has('review')),
    group('done', rows('done', [snapshot.done], () => [...snapshot.done].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).map(issue('done')))),
  ];
  return groups.filter((g) => g.children.length > 0);
}

function group(id: GroupId, children: Array<ClaimNode | IssueNode>, more = false): GroupNode {
  return { kind: 'group', id, label: LABELS[id], children, expanded: !COLLAPSED.has(id), more };
}

/** A live claim: holder, countdown, and whether this window keeps it alive. */
export function claimNode(claim: ClaimView, snapshot: BatonSnapshot, ctx: TreeContext): ClaimNode {
  const msLeft = Date.parse(claim.expiresAt) - ctx.now;
  const countdown = formatCountdown(msLeft);
  const keptAliveHere = isKeptAliveBy(claim, ctx.renewer, snapshot.sessions, ctx.isAlive);
  const warning = msLeft <= ctx.warningSeconds * 1000;
  const left = msLeft > 0 ? `${countdown} left` : countdown;
  const activity = activityOf(claim, snapshot.idleSeconds, ctx.now);
  const details = claimDetails(claim, snapshot, ctx, keptAliveHere);
  return {
    kind: 'claim',
    id: `claim:${claim.key}`,
    key: claim.key,
    title: claim.title,
    agent: claim.agent,
    branch: claim.branch,
    fence: snapshot.fences[claim.key],
    msLeft,
    countdown,
    warning,
    idle: activity?.idle ?? false,
    keptAliveHere,
    hasCheckpoint: claim.checkpoint !== null,
    overlaps: claim.overlaps,
    description: [claim.agent, left, activity?.text, keptAliveHere ? 'kept alive here' : undefined, claim.overlaps.length > 0 ? `overlaps ${claim.overlaps.map((o) => o.key).join(', ')}` : undefined]
      .filter(Boolean)
      .join(' · '),
    tooltip: claimTooltip(claim, left, details),
    details,
  };
}

/** The worktree detail of a claim whose holder recorded none. */
export const NO_WORKTREE = 'not recorded';
/** "active 2 min ago", or "idle 47 min" past the idle limit (shared/rules/renewal.ts); undefined when not known. */
function activityOf(claim: ClaimView, idleSeconds: number, now: number): { text: string; idle: boolean } | undefined {
  if (claim.lastActiveAt === null) return undefined;
  const idleMs = idleFor({ lastActiveAt: claim.lastActiveAt, startedAt: claim.lastActiveAt }, now);
  if (idleSeconds > 0 && idleMs >= idleSeconds * 1000) return { text: `idle ${idleDuration(idleMs)}`, idle: true };
  return { text: `active ${formatAgo(claim.lastActiveAt, now)}`, idle: false };
}

function claimDetails(claim: ClaimView, snapshot: BatonSnapshot, ctx: TreeContext, keptAliveHere: boolean): DetailNode[] {
  const session = sessionOf(claim, snapshot.sessions);
  const running = session === undefined ? 'process unknown' : ctx.isAlive(session) ? 'running' : 'process gone';
  const renewerNote = keptAliveHere
    ? ' (this window keeps it alive)'
    : claim.renewer === ctx.renewer
      ? ' (this window; its agent has stopped, so it will lapse)'
      : '';
  const fence = snapshot.fences[claim.key];
  const cp = claim.checkpoint;
  const detail = (field: DetailNode['field'], label: string, value: string, tooltip?: string): DetailNode => ({
    kind: 'detail',
    id: `claim:${claim.key}:${field}`,
    key: claim.key,
    field,
    label,
    value,
    ...(tooltip === undefined ? {} : { tooltip }),
  });
  return [
    detail('holder', 'Holder', `${claim.agent} · session ${claim.session} · ${running}`),
    detail('branch', 'Branch', claim.branch),
    detail('worktree', 'Worktree', claim.worktree ?? NO_WORKTREE),
    detail('renewer', 'Renewer', `${claim.renewer ?? 'none'}${renewerNote}`),
    detail('lastRenewal', 'Last renewal', `${formatAgo(claim.lastRenewedAt, ctx.now)} · ${formatTime(claim.lastRenewedAt)}`),
    detail('fence', 'Fence', fence === undefined ? 'unknown' : String(fence)),
    cp
      ? detail(
          'checkpoint',
          'Checkpoint',
          [firstLine(cp.note, 60), formatAgo(cp.at, ctx.now), cp.git ? `HEAD ${shortSha(cp.git.head)}` : null].filter(Boolean).join(' · '),
          `${escapeMarkdown(cp.note)}\n\n${formatTime(cp.at)} by ${escapeMarkdown(cp.agent)}${cp.git ? ` · HEAD ${code(cp.git.head)} on ${code(cp.git.branch ?? 'detached')}` : ''}`,
        )
      : detail('checkpoint', 'Checkpoint', 'none yet'),
  ];
}

function claimTooltip(claim: ClaimView, left: string, details: DetailNode[]): string {
  const lines = [
    `**${escapeMarkdown(claim.key)}** ${escapeMarkdown(claim.title)}`,
    '',
    `Held by **${escapeMarkdown(claim.agent)}**, ${left} (expires ${formatTime(claim.expiresAt)}).`,
    '',
    ...details.filter((d) => d.field !== 'checkpoint').map((d) => `- ${d.label}: ${escapeMarkdown(d.value)}`),
  ];
  const cp = details.find((d) => d.field === 'checkpoint');
  if (cp?.tooltip) lines.push('', `**Checkpoint** ${escapeMarkdown(cp.value)}`);
  for (const o of claim.overlaps) {
    lines.push('', `**Overlaps ${escapeMarkdown(o.key)}** (${escapeMarkdown(o.agent)}): ${o.files.map((f) => escapeMarkdown(f)).join(', ')}`);
  }
  return lines.join('\n');
}

function issueNode(group: IssueGroup, issue: IssueSummary, hasCheckpoint: boolean, now: number): IssueNode {
  // Only Blocked's issues come with their unfinished blockers alone (readBlocked.ts).
  const blockers = group === 'blocked' ? issue.blockedBy : [];
  const priority =
    issue.effectivePriority < issue.priority
      ? `${formatPriority(issue.priority)} → ${formatPriority(issue.effectivePriority)}`
      : formatPriority(issue.priority);
  const resumed = group === 'doing' && hasCheckpoint;
  const description = {
    doing: `${priority} · ${resumed ? 'resumed' : 'unheld'}`,
    ready: [priority, ...issue.labels].join(' · '),
    blocked: `blocked by ${blockers.join(', ')}`,
    review: `${priority} · waiting for a reviewer`,
    done: `done ${formatAgo(issue.updatedAt, now)}`,
    attention: `${issue.status} · reopen to hand it out again`,
  }[group];
  // The tooltip is written only when asked for (a row hovered): building it for every row
  // of a large list at every redraw was a good part of the view's CPU.
  const explain = () => ({
    doing: resumed
      ? 'Doing, with no live lease: the next agent to claim it resumes from its checkpoint.'
      : 'Doing, with no live lease: any agent may claim it.',
    ready: 'Ready: `next_issue` hands issues out in this order.',
    blocked: `Blocked by ${blockers.map(escapeMarkdown).join(', ')}: claimable once they are done.`,
    review: 'Submitted for review: a reviewer claims it with `next_issue({ role: "reviewer" })`.',
    done: `Done ${formatTime(issue.updatedAt)}.`,
    attention: `Needs attention (${issue.status}): ${escapeMarkdown(issue.attention ?? 'a person must decide')}.`,
  })[group];
  const facts = () =>
    [`Priority ${escapeMarkdown(priority)}`, issue.labels.length ? `labels ${issue.labels.map(escapeMarkdown).join(', ')}` : null, `created ${formatTime(issue.createdAt)}`].filter(Boolean);
  return {
    kind: 'issue',
    id: `${group}:${issue.key}`,
    group,
    key: issue.key,
    title: issue.title,
    description,
    get tooltip() {
      return [`**${escapeMarkdown(issue.key)}** ${escapeMarkdown(issue.title)}`, '', explain(), '', facts().join(' · ')].join('\n');
    },
    stamp: `${issue.updatedAt} ${issue.priority} ${issue.effectivePriority} ${issue.labels.join(',')}`,
    resumed,
    hasCheckpoint,
    blockers,
  };
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}
