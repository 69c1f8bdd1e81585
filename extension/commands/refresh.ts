import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';

export function registerRefresh(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(command(COMMANDS.refresh, 'Refreshing the claims', deps.log, () => deps.model.refresh()));
}
