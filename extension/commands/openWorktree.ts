import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import { worktreeTarget } from '../model/worktreeTarget.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';
import { keyOrPick } from './target.js';

/** Opens the worktree a claim's agent works in, in a new window, to watch or help it. */
export function registerOpenWorktree(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.openWorktree, 'Opening a worktree', deps.log, async (arg) => {
      const key = await keyOrPick(arg, deps.model, 'claims', 'Open the worktree of which claim?');
      if (!key) return false;
      const target = worktreeTarget(deps.model.state, key);
      if ('problem' in target) {
        void vscode.window.showInformationMessage(`Baton: ${target.problem}`);
        return false;
      }
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(target.path), { forceNewWindow: true });
      return true;
    }),
  );
}
