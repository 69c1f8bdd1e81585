import * as vscode from 'vscode';
import { COMMANDS } from '../constants.js';
import type { IssueNode } from '../model/treeNodes.js';
import { keyedLabel } from './markdown.js';

function icon(node: IssueNode): vscode.ThemeIcon {
  switch (node.group) {
    case 'doing':
      return new vscode.ThemeIcon(node.resumed ? 'history' : 'circle-large-outline');
    case 'ready':
      return new vscode.ThemeIcon('circle-large-outline');
    case 'blocked':
      return new vscode.ThemeIcon('circle-slash');
    case 'review':
      return new vscode.ThemeIcon('eye');
    case 'done':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'attention':
      return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  }
}

/** An issue no one holds. Clicking it shows its history. */
export class IssueTreeItem extends vscode.TreeItem {
  constructor(readonly node: IssueNode) {
    super(keyedLabel(node.key, node.title), vscode.TreeItemCollapsibleState.None);
    this.id = node.id;
    this.description = node.description;
    this.iconPath = icon(node);
    this.contextValue = ['issue', node.group, node.hasCheckpoint ? 'checkpoint' : ''].filter(Boolean).join(' ');
    this.command = { command: COMMANDS.showActivity, title: 'Show History', arguments: [node.key] };
  }
}
