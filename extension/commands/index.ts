import type * as vscode from 'vscode';
import { registerConfigureAgents } from './configureAgents.js';
import { registerCopyBranch } from './copyBranch.js';
import { registerCreateIssue } from './createIssue.js';
import type { CommandDeps } from './deps.js';
import { registerOpenCheckpoint } from './openCheckpoint.js';
import { registerOpenWorktree } from './openWorktree.js';
import { registerRefresh } from './refresh.js';
import { registerRelease } from './release.js';
import { registerRenewNow } from './renewNow.js';
import { registerReopen } from './reopen.js';
import { registerShowActivity } from './showActivity.js';
import { registerShowLog } from './showLog.js';
import { registerTidyWorktrees } from './tidyWorktrees.js';

/** Every command of the extension; each file registers one. */
export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  for (const register of [
    registerRefresh,
    registerRelease,
    registerReopen,
    registerRenewNow,
    registerOpenCheckpoint,
    registerCopyBranch,
    registerCreateIssue,
    registerConfigureAgents,
    registerShowActivity,
    registerShowLog,
    registerOpenWorktree,
    registerTidyWorktrees,
  ]) {
    register(context, deps);
  }
}
