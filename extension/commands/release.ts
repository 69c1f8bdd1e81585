import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import { releaseSeenClaim, seenClaim } from '../model/releaseClaim.js';
import type { CommandDeps } from './deps.js';
import { command, unwrap } from './run.js';
import { keyOrPick } from './target.js';

/** Ends the live lease of an issue for a person, after asking; the checkpoint stays for the next claimer. */
export function registerRelease(context: vscode.ExtensionContext, deps: CommandDeps): void {
  context.subscriptions.push(
    command(COMMANDS.release, 'Releasing a claim', deps.log, async (arg) => {
      const key = await keyOrPick(arg, deps.model, 'claims', 'Release which claim?');
      if (!key) return false;
      const claim = seenClaim(arg, key, deps.model.state);
      if (deps.settings().confirmRelease) {
        const choice = await vscode.window.showWarningMessage(
          `Release ${key}${claim.agent ? ` held by ${claim.agent}` : ''}?`,
          { modal: true, detail: 'The agent loses its lease at once and its next write is refused. The issue stays in Doing, with its checkpoint, for the next claimer.' },
          'Release',
        );
        if (choice !== 'Release') return false;
      }
      const baton = unwrap(await deps.source.baton());
      const result = unwrap(await releaseSeenClaim(baton, claim));
      await deps.model.refresh();
      void vscode.window.showInformationMessage(result.message);
      return result.released;
    }),
  );
}
