import type { Story } from '../../shared/history/story.js';
import type { ActivityEvent, IssueDetail } from '../../shared/types.js';
import { escapeMarkdown, formatTime } from './format.js';

/** The latest checkpoint of an issue as a markdown document. */
export function renderCheckpoint(detail: IssueDetail): string {
  const { issue, checkpoint } = detail;
  const lines = [`# ${escapeMarkdown(issue.key)}: ${escapeMarkdown(issue.title)}`, ''];
  if (!checkpoint) return [...lines, '_No checkpoint yet._', ''].join('\n');
  lines.push(`Checkpoint by **${escapeMarkdown(checkpoint.agent)}**, ${formatTime(checkpoint.at)}.`, '');
  if (checkpoint.git) {
    const dirty = checkpoint.git.dirty;
    lines.push(
      `- HEAD: \`${checkpoint.git.head}\``,
      `- Branch: \`${checkpoint.git.branch ?? 'detached'}\``,
      `- Changed files: ${dirty.length === 0 ? 'none' : dirty.map((p) => `\`${p}\``).join(', ')}`,
      '',
    );
  }
  lines.push('## Note', '', checkpoint.note, '');
  if (checkpoint.state) lines.push('## State', '', '```json', JSON.stringify(checkpoint.state, null, 2), '```', '');
  if (detail.lease) lines.push(`_Claimed by ${escapeMarkdown(detail.lease.agent)} on \`${detail.lease.branch}\`, fence ${detail.lease.fence}._`, '');
  return lines.join('\n');
}

/** An activity log, newest first, as a markdown document. */
/**
 * An issue's story (`baton why`): a table of its events in order, with agent, worktree
 * and what each meant, built by shared/history/story.ts as the CLI's is.
 */
export function renderStory(story: Story): string {
  const lines = [`# History of ${escapeMarkdown(story.key)}: ${escapeMarkdown(story.title)}`, '', `Status: ${escapeMarkdown(story.status)}`, ''];
  if (story.lines.length === 0) return [...lines, '_Nothing yet._', ''].join('\n');
  lines.push('| When | Event | Agent | Worktree | What happened |', '| --- | --- | --- | --- | --- |');
  for (const l of story.lines) {
    const cells = [formatTime(l.at), l.kind, l.agent, l.worktree ?? '', l.text].map((c) => escapeMarkdown(c).replace(/\r?\n/g, ' '));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return [...lines, ''].join('\n');
}

export function renderActivity(key: string | null, events: readonly ActivityEvent[]): string {
  const lines = [`# Activity${key ? ` of ${escapeMarkdown(key)}` : ''}`, ''];
  if (events.length === 0) return [...lines, '_Nothing yet._', ''].join('\n');
  lines.push('| When | Issue | Event | Agent | Detail |', '| --- | --- | --- | --- | --- |');
  for (const e of events) {
    const cells = [formatTime(e.at), e.key ?? '', e.type, e.agent, e.detail].map((c) => escapeMarkdown(c).replace(/\r?\n/g, ' '));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return [...lines, ''].join('\n');
}
