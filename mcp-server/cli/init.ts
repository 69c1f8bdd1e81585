import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { applyClientConfig, ClientConfigError, planClientConfig, SERVER_ENV, type ServerCommand } from '../../shared/client-config.js';
import { batonError } from '../../shared/errors.js';
import { CLAUDE_SETTINGS_FILE, CURSOR_HOOKS_FILE, planClaudeHooks, planCursorHooks } from '../../shared/hook-config.js';
import { resolveLocation } from '../../shared/location.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { refused } from './exit.js';
import { describeHook, installGuard } from './guard.js';

interface InitOptions extends CommonOptions {
  usePath?: boolean;
  guard?: boolean;
  /** `--no-hooks` sets it false. */
  hooks?: boolean;
}

/** The work loop, for a repository's AGENTS.md (or CLAUDE.md): what an agent needs to know, briefly. */
export const AGENTS_SNIPPET = `## Work queue: Baton

Issues are handed out by the \`baton\` MCP server, one agent per issue, with a lease.

1. \`next_issue\` gives you an issue, a \`claimToken\`, a \`branch\` and \`expiresAt\`. Work on that branch.
   If it says \`resumed: true\`, continue from its \`checkpoint\` instead of starting over.
2. After each step call \`checkpoint\` with a short note (and \`state\` if useful). It renews the lease
   and is what the next agent resumes from. Only \`checkpoint\` and \`heartbeat\` renew; comments do not.
3. Finish with \`done\` (or \`submit_for_review\`) and your \`claimToken\`. Stuck? \`release\` with a note.
4. \`CLAIM_LOST\`: the issue is no longer yours; stop and take the next one. After a restart, call
   \`claim_issue\` with your old \`claimToken\` to take your lease back.

Repeat until \`next_issue\` answers \`{ issue: null }\`.
`;

/** `baton init`: points Claude Code (`.mcp.json`) and VS Code (`.vscode/mcp.json`) at this server. */
export function registerInitCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('init')
      .summary('configure Claude Code and VS Code to start this server')
      .description(
        'write or merge .mcp.json (Claude Code) and .vscode/mcp.json (VS Code) so agents start this server, ' +
          `and Claude Code's hooks into ${CLAUDE_SETTINGS_FILE} (baton hook claude), and Cursor's into ${CURSOR_HOOKS_FILE} ` +
          '(baton hook cursor) where the project has a .cursor folder; keeps every other entry, safe to run again',
      )
      .option('--use-path', 'launch `baton serve` from PATH instead of this script by its absolute path')
      .option('--guard', 'also install the pre-push hook that refuses pushes of branches other worktrees hold (baton guard install)')
      .option('--no-hooks', `leave the agents' hooks out (${CLAUDE_SETTINGS_FILE}, ${CURSOR_HOOKS_FILE})`),
  ).action(
    action<InitOptions, []>(deps, async (ctx, opts) => {
      const location = resolveLocation({ cwd: deps.cwd, db: opts.db, env: deps.env });
      if (!location.repoRoot && location.commonDir) {
        // A bare repository, or inside .git: agents work in worktrees, where their clients read the files.
        throw refused(batonError('INVALID_INPUT', `${resolve(deps.cwd)} is in a git repository but not in a worktree; run baton init in a worktree`));
      }
      const root = location.repoRoot ?? resolve(deps.cwd);
      const launch: ServerCommand = {
        ...(opts.usePath ? { command: 'baton', args: ['serve'] } : { command: 'node', args: [deps.cliPath, 'serve'] }),
        // An explicit --db must reach the server too; the default location needs no setting.
        env: { ...SERVER_ENV, ...(opts.db ? { BATON_DB: location.dbPath } : {}) },
      };
      // Everything that can fail is checked before a file is written: the configuration
      // files are read and merged, then the settings and database are opened (which
      // creates the database now, so `baton doctor` and the editor find it before any
      // agent runs). Only then are the files written.
      const plan = clientConfig(() => planClientConfig(root, launch));
      if (opts.hooks !== false) {
        const cliPath = opts.usePath ? null : deps.cliPath;
        plan.files.push(clientConfig(() => planClaudeHooks(root, hookCommand(cliPath, 'claude'))));
        if (usesCursor(root)) plan.files.push(clientConfig(() => planCursorHooks(root, hookCommand(cliPath, 'cursor'))));
      }
      const { location: opened } = await ctx.open();
      const files = clientConfig(() => applyClientConfig(plan));
      const guard = opts.guard ? installGuard(deps) : undefined;
      if (ctx.json) {
        return ctx.printJson({ ...files, database: opened.dbPath, server: launch, agentsSnippet: AGENTS_SNIPPET, ...(guard ? { guard: { changed: guard.changed, ...guard.status } } : {}) });
      }
      for (const file of files.written) ctx.print(`${ctx.out.green('wrote')}     ${file}`);
      for (const file of files.unchanged) ctx.print(`${ctx.out.dim('unchanged')} ${file}`);
      ctx.print(`${ctx.out.dim('database')} ${opened.dbPath}`);
      if (guard) for (const line of describeHook(ctx, guard.status)) ctx.print(line);
      if (!location.repoRoot) ctx.log(`${ctx.err.yellow('note')} ${root} is not in a git repository; configured it anyway.`);
      ctx.print(`\nAdd this to AGENTS.md (or CLAUDE.md) so agents follow the work loop:\n\n${AGENTS_SNIPPET}`);
    }),
  );
}

/** The command the client runs for each hook event: this script by its absolute path, or `baton` from PATH. */
function hookCommand(cliPath: string | null, client: 'claude' | 'cursor'): string {
  if (cliPath === null) return `baton hook ${client}`;
  // Run by a shell: a path with spaces or quotes is quoted.
  const script = /^[\w@%+=:,./-]+$/.test(cliPath) ? cliPath : `'${cliPath.replace(/'/g, `'\\''`)}'`;
  return `node ${script} hook ${client}`;
}

/**
 * Whether the project uses Cursor: it has a `.cursor` folder (its MCP configuration, rules
 * or hooks). Unlike Claude Code's settings, Cursor's hooks are not written into every
 * repository: a `.cursor` folder of Baton's own would look like a Cursor project to others.
 */
function usesCursor(root: string): boolean {
  const dir = join(root, '.cursor');
  return existsSync(dir) && statSync(dir).isDirectory();
}

/** Runs a step on the client configuration files; a file it refuses is a refused operation naming the file. */
function clientConfig<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ClientConfigError)) throw error;
    throw refused(batonError('INVALID_INPUT', error.message, { file: error.file }));
  }
}
