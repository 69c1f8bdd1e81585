import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command, unwrap } from './run.js';
import { keyOf } from './target.js';

/** Puts an issue that needs attention (stuck) back to todo, as `baton reopen` does, after asking. */
export function registerReopen(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.reopen, 'Reopening an issue', deps.log, async (arg) => {
      let key = keyOf(arg);
      if (!key) {
        // From the palette: the issues that need attention, as the tree lists them.
        await deps.model.refresh();
        const state = deps.model.state;
        const stuck = state.kind === 'ready' ? state.snapshot.stuck : [];
        const picked = await vscode.window.showQuickPick(
          stuck.map((i) => ({ label: i.key, description: i.title, detail: i.attention })),
          { placeHolder: stuck.length ? 'Reopen which issue?' : 'No issue needs attention.' },
        );
        key = picked?.label;
      }
      if (!key) return false;
      const choice = await vscode.window.showWarningMessage(
        `Reopen ${key}?`,
        { modal: true, detail: 'It goes back to todo, and agents are handed it again. Show History tells why it got stuck.' },
        'Reopen',
      );
      if (choice !== 'Reopen') return false;
      const baton = unwrap(await deps.source.baton());
      const { issue } = unwrap(await baton.reopen({ key }));
      await deps.model.refresh();
      void vscode.window.showInformationMessage(`${issue.key} is ${issue.status} again.`);
      return true;
    }),
  );
}
