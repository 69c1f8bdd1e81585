import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';
import { keyOrPick } from './target.js';

/** Copies the branch of a claim, to check it out or open a pull request. */
export function registerCopyBranch(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.copyBranch, 'Copying a branch name', deps.log, async (arg) => {
      const key = await keyOrPick(arg, deps.model, 'claims', 'Copy the branch of which claim?');
      const state = deps.model.state;
      const branch = state.kind === 'ready' ? state.snapshot.claims.find((c) => c.key === key)?.branch : undefined;
      if (!key || !branch) return undefined;
      await vscode.env.clipboard.writeText(branch);
      void vscode.window.setStatusBarMessage(`Copied ${branch}`, 3000);
      return branch;
    }),
  );
}
