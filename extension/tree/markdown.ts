import * as vscode from 'vscode';

/** Tooltip markdown from the model: plain, untrusted, with codicons allowed. */
export function tooltip(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.supportThemeIcons = true;
  return md;
}

/** A label that shows the issue key in bold. */
export function keyedLabel(key: string, title: string): vscode.TreeItemLabel {
  return { label: `${key} ${title}`, highlights: [[0, key.length]] };
}
