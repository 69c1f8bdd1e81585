import * as vscode from 'vscode';
import { VIEWS } from './constants.js';
import type { TreeContext } from './model/buildTree.js';
import type { ClaimsModel } from './model/claimsModel.js';
import { type StatusSummary, summarize } from './model/statusSummary.js';

/** Live claims and the nearest expiry; a click shows the Claims view. */
export class ClaimsStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('baton.claims', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;
  /** What the item shows now; undefined before the first render. */
  private shown: StatusSummary | null | undefined;

  constructor(
    private readonly model: ClaimsModel,
    private readonly context: () => TreeContext,
  ) {
    this.item.name = 'Baton Claims';
    this.item.command = VIEWS.focusClaims;
    this.subscription = model.onDidChange(() => this.render());
    this.render();
  }

  render(): void {
    const summary = summarize(this.model.state, this.context());
    // Every property set is a message to the window, and this runs at each tick and each change.
    if (sameSummary(summary, this.shown)) return;
    this.shown = summary;
    if (!summary) return this.item.hide();
    this.item.text = summary.text;
    const tooltip = new vscode.MarkdownString(summary.tooltip);
    tooltip.supportThemeIcons = true;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = summary.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}

function sameSummary(a: StatusSummary | null, b: StatusSummary | null | undefined): boolean {
  if (a === null || b === null || b === undefined) return a === b;
  return a.text === b.text && a.tooltip === b.tooltip && a.warning === b.warning;
}
