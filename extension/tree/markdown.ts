import * as vscode from 'vscode';

/** Tooltip markdown from the model: plain, untrusted, with codicons allowed. */
export function tooltip(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.supportThemeIcons = true;
  return md;
}

/** `BAT-3 Fix the parser`. (Label highlights would look like search matches, so the key stays plain.) */
export function keyedLabel(key: string, title: string): string {
  return `${key} ${title}`;
}
