import * as vscode from 'vscode';
import { VIEWS } from './constants.js';
import type { TreeContext } from './model/buildTree.js';
import type { ClaimsModel } from './model/claimsModel.js';
import { summarize } from './model/statusSummary.js';

/** Live claims and the nearest expiry; a click shows the Claims view. */
export class ClaimsStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('baton.claims', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

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
