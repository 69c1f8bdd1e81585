import * as vscode from 'vscode';
import type { GroupId, GroupNode } from '../model/treeNodes.js';

const ICONS: Record<GroupId, string> = {
  attention: 'warning',
  claimed: 'lock',
  doing: 'debug-pause',
  ready: 'play-circle',
  blocked: 'circle-slash',
  review: 'eye',
  done: 'pass',
};

/** A heading: Claimed, Doing, Ready, Blocked, In review, Done. */
export class GroupTreeItem extends vscode.TreeItem {
  constructor(node: GroupNode) {
    super(node.label, node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    this.id = `group:${node.id}`;
    this.description = node.more ? `${node.children.length}+` : String(node.children.length);
    if (node.more) this.tooltip = 'The store holds more than the view reads: `baton ls` lists them.';
    this.iconPath = new vscode.ThemeIcon(ICONS[node.id]);
    this.contextValue = `group ${node.id}`;
  }
}
