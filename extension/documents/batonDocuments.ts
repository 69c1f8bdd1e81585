import * as vscode from 'vscode';
import type { BatonSource } from '../model/batonSource.js';
import type { ClaimsModel } from '../model/claimsModel.js';
import { renderActivity, renderCheckpoint, renderStory } from '../model/renderDocuments.js';
import { SCHEMES } from '../constants.js';
import { messageFor } from '../errors.js';

/** `baton-checkpoint:/BAT-3.md` */
export function checkpointUri(key: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEMES.checkpoint, path: `/${key}.md` });
}

/** `baton-activity:/BAT-3.md` (the issue's story), or `/all.md` (the activity log of every issue). */
export function activityUri(key: string | null): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEMES.activity, path: `/${key ?? 'all'}.md` });
}

/**
 * Read-only markdown documents for checkpoints, issue histories and the activity log, rendered from the
 * store on demand and redrawn when the store changes while they are open.
 */
export class BatonDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly source: BatonSource,
    model: ClaimsModel,
  ) {
    this.subscriptions = [
      this.changed,
      vscode.workspace.registerTextDocumentContentProvider(SCHEMES.checkpoint, this),
      vscode.workspace.registerTextDocumentContentProvider(SCHEMES.activity, this),
      model.onDidChange(() => {
        for (const doc of vscode.workspace.textDocuments) {
          if (doc.uri.scheme === SCHEMES.checkpoint || doc.uri.scheme === SCHEMES.activity) this.changed.fire(doc.uri);
        }
      }),
    ];
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const name = uri.path.replace(/^\//, '').replace(/\.md$/, '');
    const baton = await this.source.existing();
    if (baton === null) return '_No Baton database in this repository yet._\n';
    if (!baton.ok) return `${messageFor(baton.error)}\n`;
    if (uri.scheme === SCHEMES.checkpoint) {
      const detail = await baton.value.getIssue({ key: name });
      return detail.ok ? renderCheckpoint(detail.value) : `${messageFor(detail.error)}\n`;
    }
    if (name !== 'all') {
      // One issue: its story, as `baton why` tells it.
      const story = await baton.value.story({ key: name });
      return story.ok ? renderStory(story.value) : `${messageFor(story.error)}\n`;
    }
    const activity = await baton.value.activity({ limit: 200 });
    return activity.ok ? renderActivity(null, activity.value.events) : `${messageFor(activity.error)}\n`;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
