import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import { activityUri } from '../documents/batonDocuments.js';
import type { CommandDeps } from './deps.js';
import { command } from './run.js';
import { keyOf } from './target.js';

const ALL = '$(list-flat) All issues';

/**
 * Show History: an issue's story (as `baton why` tells it), or the activity log of every
 * issue, as a read-only markdown document.
 */
export function registerShowActivity(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.showActivity, 'Showing history', deps.log, async (arg) => {
      let key = keyOf(arg) ?? null;
      if (key === null) {
        // The lists are kept current only while the view shows them.
        await deps.model.refresh();
        const state = deps.model.state;
        const issues = state.kind === 'ready' ? [...state.snapshot.stuck, ...state.snapshot.claims, ...state.snapshot.doing, ...state.snapshot.ready, ...state.snapshot.review] : [];
        const keys = [...new Map(issues.map((i) => [i.key, { label: i.key, description: i.title }])).values()];
        const picked = await vscode.window.showQuickPick([{ label: ALL }, ...keys], { placeHolder: 'History of which issue?' });
        if (!picked) return undefined;
        key = picked.label === ALL ? null : picked.label;
      }
      const doc = await vscode.workspace.openTextDocument(activityUri(key));
      return vscode.window.showTextDocument(doc, { preview: true });
    }),
  );
}
