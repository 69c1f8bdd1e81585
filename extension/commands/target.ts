import * as vscode from 'vscode';
import type { ClaimsModel } from '../model/claimsModel.js';
import type { TreeNode } from '../model/treeNodes.js';

/** The issue key a command was given: a tree node (menus), a key (code, links), or nothing (palette). */
export function keyOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg !== null && 'key' in arg && typeof (arg as TreeNode & { key: unknown }).key === 'string') {
    return (arg as { key: string }).key;
  }
  return undefined;
}

/** The key given, or one the user picks among the claims (or all issues the view shows). */
export async function keyOrPick(arg: unknown, model: ClaimsModel, from: 'claims' | 'issues', placeHolder: string): Promise<string | undefined> {
  const given = keyOf(arg);
  if (given) return given;
  // The lists are kept current only while the view shows them.
  if (from === 'issues') await model.refresh();
  const state = model.state;
  if (state.kind !== 'ready') return undefined;
  const s = state.snapshot;
  const items =
    from === 'claims'
      ? s.claims.map((c) => ({ label: c.key, description: c.title, detail: `${c.agent} · ${c.branch}` }))
      : [...s.claims, ...s.doing, ...s.ready, ...s.blocked, ...s.review, ...s.done]
          .filter((i, n, all) => all.findIndex((j) => j.key === i.key) === n)
          .map((i) => ({ label: i.key, description: i.title }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage(from === 'claims' ? 'Baton: no live claims.' : 'Baton: no issues yet.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true }))?.label;
}
