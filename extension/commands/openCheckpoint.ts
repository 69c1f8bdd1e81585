import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import { checkpointUri } from '../documents/batonDocuments.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';
import { keyOrPick } from './target.js';

/** Opens the latest checkpoint of an issue as a read-only markdown document. */
export function registerOpenCheckpoint(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.openCheckpoint, 'Opening a checkpoint', deps.log, async (arg) => {
      const key = await keyOrPick(arg, deps.model, 'issues', 'Open the checkpoint of which issue?');
      if (!key) return undefined;
      const doc = await vscode.workspace.openTextDocument(checkpointUri(key));
      return vscode.window.showTextDocument(doc, { preview: true });
    }),
  );
}
