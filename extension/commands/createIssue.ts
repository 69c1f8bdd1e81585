import * as vscode from 'vscode';
import { DEFAULT_PRIORITY, LIMITS } from '../../shared/limits.js';
import { COMMANDS } from '../constants.js';
import type { CommandDeps } from './deps.js';
import { command, unwrap } from './run.js';

const PRIORITIES = [
  { label: 'P0', description: 'urgent', priority: 0 },
  { label: 'P1', description: 'high', priority: 1 },
  { label: 'P2', description: 'normal', priority: 2 },
  { label: 'P3', description: 'low', priority: 3 },
  { label: 'P4', description: 'someday', priority: 4 },
];

/** Asks for a title, a priority and labels, and files the issue. */
export function registerCreateIssue(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.createIssue, 'Creating an issue', deps.log, async () => {
      const title = await vscode.window.showInputBox({
        title: 'New Baton issue (1/3)',
        prompt: 'Title',
        placeHolder: 'What should an agent do?',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? 'A title is required.' : v.length > LIMITS.title ? `At most ${LIMITS.title} characters.` : undefined),
      });
      if (title === undefined) return undefined;
      const picks = PRIORITIES.map((p) => ({ ...p, picked: p.priority === DEFAULT_PRIORITY }));
      const priority = await vscode.window.showQuickPick(
        [...picks.filter((p) => p.picked), ...picks.filter((p) => !p.picked)],
        { title: 'New Baton issue (2/3)', placeHolder: 'Priority', ignoreFocusOut: true },
      );
      if (priority === undefined) return undefined;
      const labels = await vscode.window.showInputBox({
        title: 'New Baton issue (3/3)',
        prompt: 'Labels, separated by commas (optional)',
        ignoreFocusOut: true,
      });
      if (labels === undefined) return undefined;
      const baton = unwrap(await deps.source.baton());
      const { issue } = unwrap(
        await baton.createIssue({
          title: title.trim(),
          priority: priority.priority,
          labels: labels.split(',').map((l) => l.trim()).filter(Boolean),
        }),
      );
      await deps.model.refresh();
      void vscode.window.showInformationMessage(`Baton: created ${issue.key}.`);
      return issue.key;
    }),
  );
}
