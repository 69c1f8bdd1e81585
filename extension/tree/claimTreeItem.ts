import * as vscode from 'vscode';
import type { ClaimNode } from '../model/treeNodes.js';
import { claimUri } from './countdownDecorations.js';
import { keyedLabel } from './markdown.js';

/**
 * A live lease: key and title, then holder and countdown. `contextValue` words drive the
 * menus: `claim`, `mine` when this window keeps it alive, `checkpoint` when it has one.
 */
export class ClaimTreeItem extends vscode.TreeItem {
  constructor(readonly node: ClaimNode) {
    super(keyedLabel(node.key, node.title), vscode.TreeItemCollapsibleState.Collapsed);
    this.id = node.id;
    this.description = node.description;
    // The resource lets the countdown decorations colour the label in the warning period.
    this.resourceUri = claimUri(node.key);
    // The warning colour near expiry, for an agent idle past the limit, whose lease will lapse,
    // and for another claim touching the same files, which outranks how the lease is kept.
    const color = node.warning || node.idle || node.overlaps.length > 0 ? new vscode.ThemeColor('list.warningForeground') : undefined;
    this.iconPath = new vscode.ThemeIcon(node.overlaps.length > 0 ? 'warning' : node.keptAliveHere ? 'sync' : 'lock', color);
    this.contextValue = ['claim', node.keptAliveHere ? 'mine' : '', node.hasCheckpoint ? 'checkpoint' : ''].filter(Boolean).join(' ');
  }
}
