import type * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';

export function registerShowLog(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(command(COMMANDS.showLog, 'Showing the log', deps.log, async () => deps.log.show()));
}
