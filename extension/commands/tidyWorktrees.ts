import * as vscode from 'vscode';
import { applyTidy, planOutcome, planTidy } from '../../shared/worktrees/tidy.js';
import { realPath } from '../../shared/worktrees/worktree-list.js';
import { COMMANDS } from '../constants.js';
import { tidyPreview, tidyReport } from '../model/tidySummary.js';
import type { CommandDeps } from './deps.js';
import { command, unwrap } from './run.js';

/**
 * Tidy Worktrees…: the rules of `baton worktree tidy` (shared/worktrees), shown first in a
 * modal dialog, carried out only on confirmation. The window's own folder is never removed.
 */
export function registerTidyWorktrees(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.tidyWorktrees, 'Tidying worktrees', deps.log, async () => {
      if (deps.folder === null) {
        void vscode.window.showInformationMessage('Baton: open a folder of a git repository to tidy its worktrees.');
        return undefined;
      }
      const baton = unwrap(await deps.source.baton());
      const here = realPath(deps.folder);
      const plan = unwrap(await planTidy(deps.folder, baton, here));
      const preview = tidyPreview(planOutcome(plan));
      if (!preview.remove) {
        void vscode.window.showInformationMessage(preview.message, { modal: true, detail: preview.detail });
        return undefined;
      }
      const choice = await vscode.window.showWarningMessage(preview.message, { modal: true, detail: preview.detail }, 'Remove');
      if (choice !== 'Remove') return undefined;
      const outcome = unwrap(await applyTidy(plan, baton, here));
      for (const removed of outcome.removed) deps.log.info(`Removed worktree ${removed.path}${removed.branchDeleted ? `, deleted branch ${removed.branch}` : ''}`);
      for (const path of outcome.pruned) deps.log.info(`Pruned worktree ${path} (folder already gone)`);
      for (const kept of outcome.kept) deps.log.info(`Kept ${kept.path}: ${kept.reasons.map((r) => r.message).join('; ')}`);
      void vscode.window.showInformationMessage(tidyReport(outcome), 'Show Log').then((pick) => {
        if (pick) deps.log.show(true);
      });
      return outcome;
    }),
  );
}
