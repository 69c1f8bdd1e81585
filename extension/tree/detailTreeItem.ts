import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import { NO_WORKTREE } from '../model/buildTree.js';
import type { DetailField, DetailNode } from '../model/treeNodes.js';
import { tooltip } from './markdown.js';

const ICONS: Record<DetailField, string> = {
  holder: 'person',
  branch: 'git-branch',
  worktree: 'folder',
  renewer: 'sync',
  lastRenewal: 'history',
  fence: 'shield',
  checkpoint: 'bookmark',
};

/** One fact of a claim: its branch, worktree, renewer, last renewal, fence or checkpoint. */
export class DetailTreeItem extends vscode.TreeItem {
  constructor(readonly node: DetailNode) {
    super(node.label, vscode.TreeItemCollapsibleState.None);
    this.id = node.id;
    this.description = node.value;
    this.tooltip = node.tooltip === undefined ? `${node.label}: ${node.value}` : tooltip(node.tooltip);
    this.iconPath = new vscode.ThemeIcon(ICONS[node.field]);
    this.contextValue = `detail ${node.field}`;
    if (node.field === 'checkpoint' && node.tooltip !== undefined) {
      this.contextValue += ' checkpoint';
      this.command = { command: COMMANDS.openCheckpoint, title: 'Open Checkpoint', arguments: [node.key] };
    }
    if (node.field === 'worktree' && node.value !== NO_WORKTREE) {
      this.contextValue += ' worktree';
      this.command = { command: COMMANDS.openWorktree, title: 'Open Worktree in New Window', arguments: [node.key] };
    }
  }
}
