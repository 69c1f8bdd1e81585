import { basename } from 'node:path';
import type { Command } from 'commander';
import type { Story } from '../../shared/history/story.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';
import type { Colors } from './render.js';

/** `baton why KEY`: the issue's story, one line an event: who claimed it, renewed it, lost it and why. */
export function registerWhyCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('why')
      .summary("tell an issue's story: claims, renewals, checkpoints, expiries and why, refused late writes")
      .description("tell an issue's story in order, one line an event, with agent, worktree and time: claims and takeovers, renewals, checkpoints, why each lease ended, refused late writes, review steps")
      .argument('<key>', 'the issue key, such as BAT-12', parseKey),
  ).action(
    action<CommonOptions, [string]>(deps, async (ctx, _opts, key) => {
      const { baton } = await ctx.open();
      const story = unwrap(await baton.story({ key }));
      if (ctx.json) return ctx.printJson(story);
      ctx.print(renderStory(ctx.out, story));
    }),
  );
}

/** The text of `baton why`: a heading, then `time  kind  agent (worktree)  what happened`. */
export function renderStory(c: Colors, story: Story): string {
  const out = [`${c.bold(story.key)}  ${c.bold(story.title)}  ${c.dim(story.status)}`];
  if (story.lines.length === 0) out.push(c.dim('  No history.'));
  for (const line of story.lines) {
    const who = line.agent ? `${line.agent}${line.worktree ? ` (${basename(line.worktree)})` : ''}` : '';
    out.push(`  ${c.dim(line.at)}  ${line.kind.padEnd(17)} ${who ? `${who}  ` : ''}${line.text}`);
  }
  return `${out.join('\n')}\n`;
}
