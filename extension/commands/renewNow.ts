import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';
import { keyOf } from './target.js';

/** Renews now the leases this window keeps alive; it never renews another renewer's lease. */
export function registerRenewNow(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.renewNow, 'Renewing leases', deps.log, async (arg) => {
      const key = keyOf(arg);
      const report = await deps.renewer.renewNow();
      await deps.model.refresh();
      if (report === null) {
        void vscode.window.showWarningMessage('Baton: nothing renewed; see the Baton log.');
      } else if (key && !report.keys.includes(key)) {
        void vscode.window.showWarningMessage(
          `Baton: this window does not keep ${key} alive, so it was not renewed. A window renews only the leases of agents it started, while they run.`,
        );
      } else {
        const keys = report.renewed.map((l) => l.key);
        void vscode.window.showInformationMessage(keys.length ? `Baton: renewed ${keys.join(', ')}.` : 'Baton: this window keeps no lease alive.');
      }
      return report;
    }),
  );
}
