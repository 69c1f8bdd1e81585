import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { batonError } from '../../shared/errors.js';
import { type GuardLaunch, HookError, type HookStatus, hookStatus, installHook, uninstallHook } from '../../shared/git-hooks.js';
import { checkPush } from '../../shared/guard-check.js';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { CliExit, EXIT, refused } from './exit.js';

/** How the hook starts `baton guard check`: this build, with the Node that runs it (as `baton init` points configurations at it). */
export function guardLaunch(deps: CliDeps): GuardLaunch {
  return { node: process.execPath, script: deps.cliPath };
}

/** Installs the guard for `baton guard install` and `baton init --guard`; a hook it cannot place is a refusal naming the file. */
export function installGuard(deps: CliDeps): { status: HookStatus; changed: boolean } {
  return hooks(() => installHook(deps.cwd, guardLaunch(deps)));
}

function hooks<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof HookError) throw refused(batonError('INVALID_INPUT', error.message, { path: error.path }));
    throw error;
  }
}

/** The lines `install`, `uninstall` and `status` print about the hook. */
export function describeHook(ctx: CommandContext, status: HookStatus): string[] {
  const lines: string[] = [];
  const state = { baton: ctx.out.green('installed'), other: ctx.out.yellow('not installed (another pre-push hook is there)'), none: ctx.out.dim('not installed') }[
    status.installed
  ];
  lines.push(`push guard ${state}  ${status.hook}`);
  if (status.launch) lines.push(`runs       ${status.launch.node} ${status.launch.script} guard check`);
  if (status.chained) lines.push(`chains     ${status.chained} (runs first; its refusal refuses the push)`);
  if (status.hooksPath) lines.push(`core.hooksPath ${status.hooksPath}`);
  if (status.perWorktree) {
    lines.push(ctx.out.yellow('core.hooksPath is relative: each worktree has its own hooks folder; run baton guard install in each worktree'));
  }
  return lines;
}

/** `baton guard install | uninstall | status | check`: the pre-push hook that fences pushes by lease. */
export function registerGuardCommand(program: Command, deps: CliDeps): void {
  const guard = program
    .command('guard')
    .summary('install the pre-push hook that refuses pushes of branches other worktrees hold')
    .description(
      "a pre-push hook, shared by every worktree, that refuses a push of an issue's branch from a worktree that does not hold the issue " +
        '(git push --no-verify overrides it)',
    );

  withCommonOptions(guard.command('install').description('install the hook (chains a pre-push hook already there); safe to run again')).action(
    action<CommonOptions, []>(deps, async (ctx) => {
      const { status, changed } = installGuard(deps);
      if (ctx.json) return ctx.printJson({ changed, ...status });
      ctx.print([changed ? 'Installed.' : 'Already installed; nothing changed.', ...describeHook(ctx, status)].join('\n'));
    }),
  );

  withCommonOptions(guard.command('uninstall').description('remove the hook and put back the hook it chained, byte for byte')).action(
    action<CommonOptions, []>(deps, async (ctx) => {
      const { status, changed } = hooks(() => uninstallHook(deps.cwd));
      if (ctx.json) return ctx.printJson({ changed, ...status });
      ctx.print([changed ? 'Removed.' : 'Not installed; nothing changed.', ...describeHook(ctx, status)].join('\n'));
    }),
  );

  withCommonOptions(guard.command('status').description('say whether the hook is installed, where, what it runs and what it chains')).action(
    action<CommonOptions, []>(deps, async (ctx) => {
      const status = hooks(() => hookStatus(deps.cwd));
      if (ctx.json) return ctx.printJson(status);
      ctx.print(describeHook(ctx, status).join('\n'));
    }),
  );

  withCommonOptions(
    guard
      .command('check')
      .description("what the hook runs: reads git's pre-push lines on stdin; exit 0 lets the push go, 1 refuses it")
      .argument('[remote]', 'the remote name, as git passes it')
      .argument('[url]', 'the remote URL, as git passes it'),
  ).action(
    action<CommonOptions, [string | undefined, string | undefined]>(deps, async (ctx, opts) => {
      const verdict = await checkPush({ cwd: deps.cwd, env: deps.env, db: opts.db, input: readFileSync(0, 'utf8') });
      if (ctx.json) ctx.printJson(verdict);
      if (verdict.text) deps.stderr.write(verdict.text);
      if (!verdict.pass) throw new CliExit(EXIT.refused);
    }),
  );
}
