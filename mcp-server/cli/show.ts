import type { Command } from 'commander';
import type { IssueDetail } from '../../shared/types.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';
import { ago } from './tables.js';
import type { Colors } from './render.js';
import { paintCountdown, paintPriority, paintStatus, secondsUntil } from './render.js';

/** `baton show KEY`: one issue with its lease, checkpoint, relations, comments and recent activity. */
export function registerShowCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('show')
      .summary('show one issue')
      .description('show one issue: lease, checkpoint, relations, comments, activity')
      .argument('<key>', 'the issue key, such as BAT-12', parseKey),
  ).action(
    action<CommonOptions, [string]>(deps, async (ctx, _opts, key) => {
      const { baton } = await ctx.open();
      const detail = unwrap(await baton.getIssue({ key }));
      if (ctx.json) return ctx.printJson(detail);
      ctx.print(renderDetail(ctx.out, detail, (await ctx.storeClock())()));
    }),
  );
}

/** The text of `baton show`. */
export function renderDetail(c: Colors, detail: IssueDetail, now: number): string {
  const { issue, lease, checkpoint, relations, comments, activity } = detail;
  const out: string[] = [];
  const field = (name: string, value: string) => out.push(`  ${c.dim(name.padEnd(12))}${value}`);
  out.push(`${c.bold(issue.key)}  ${c.bold(issue.title)}`);
  field('status', paintStatus(c, issue.status, Boolean(lease)));
  const effective = issue.effectivePriority !== issue.priority ? c.dim(` (effective P${issue.effectivePriority})`) : '';
  field('priority', paintPriority(c, issue.priority) + effective);
  if (issue.labels.length) field('labels', issue.labels.join(', '));
  if (relations.blockedBy.length) field('blocked by', relations.blockedBy.join(', '));
  if (relations.blocks.length) field('blocks', relations.blocks.join(', '));
  if (relations.relatesTo.length) field('relates to', relations.relatesTo.join(', '));
  if (relations.parent) field('parent', relations.parent);
  if (relations.children.length) field('children', relations.children.join(', '));
  if (issue.reclaimCount) field('reclaimed', `${issue.reclaimCount} time${issue.reclaimCount === 1 ? '' : 's'}`);
  if (lease) {
    const left = secondsUntil(lease.expiresAt, now);
    field('held by', `${lease.agent}, ${paintCountdown(c, left)} left${lease.renewer ? `, renewed by ${lease.renewer}` : ''}`);
    field('branch', lease.branch);
    if (lease.worktree) field('worktree', lease.worktree);
    field('claimed', `${lease.claimedAt} (last renewed ${lease.lastRenewedAt})`);
    if (lease.lastActiveAt) field('active', `${lease.lastActiveAt} (${ago(now - Date.parse(lease.lastActiveAt))} ago)`);
  }
  if (checkpoint) {
    field('checkpoint', `${checkpoint.note} ${c.dim(`(${checkpoint.agent}, ${checkpoint.at})`)}`);
    if (checkpoint.git) {
      const dirty = checkpoint.git.dirty.length ? `, ${checkpoint.git.dirty.length} changed` : ', clean';
      field('at commit', `${checkpoint.git.head.slice(0, 12)} on ${checkpoint.git.branch ?? '(detached)'}${dirty}`);
    }
  }
  for (const o of detail.overlaps) field('overlaps', c.yellow(`${o.key} (${o.agent} in ${o.worktree ?? 'an unknown worktree'}): ${o.files.join(', ')}`));
  if (issue.body.trim()) out.push('', ...issue.body.trimEnd().split('\n').map((line) => `  ${line}`));
  if (comments.length) {
    out.push('', c.bold('Comments'));
    for (const comment of comments) out.push(`  ${c.dim(`${comment.at} ${comment.agent}:`)} ${comment.text}`);
  }
  if (activity.length) {
    out.push('', c.bold('Activity'));
    for (const event of activity.slice(0, 10)) {
      out.push(`  ${c.dim(event.at)} ${event.type.padEnd(10)} ${event.agent}${event.detail ? `  ${c.dim(event.detail)}` : ''}`);
    }
  }
  return `${out.join('\n')}\n`;
}
