import * as vscode from 'vscode';
import { buildTree, type TreeContext } from '../model/buildTree.js';
import type { ClaimsModel } from '../model/claimsModel.js';
import type { GroupNode, TreeNode } from '../model/treeNodes.js';
import { ClaimTreeItem } from './claimTreeItem.js';
import type { CountdownDecorations } from './countdownDecorations.js';
import { DetailTreeItem } from './detailTreeItem.js';
import { GroupTreeItem } from './groupTreeItem.js';
import { IssueTreeItem } from './issueTreeItem.js';

/**
 * Renders the model as the Claims tree. Data changes redraw the whole tree; the
 * once-a-second tick redraws only the Claimed group, whose countdowns move.
 */
export class ClaimsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private groups: GroupNode[] = [];
  private readonly parents = new Map<TreeNode, TreeNode>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly model: ClaimsModel,
    private readonly context: () => TreeContext,
    private readonly decorations: CountdownDecorations,
  ) {
    this.subscription = model.onDidChange(() => this.refresh());
    this.groups = this.build();
    this.index();
  }

  /** The nodes as drawn now, for commands and tests. */
  get roots(): readonly GroupNode[] {
    return this.groups;
  }

  /** Rebuilds from the model and redraws everything. */
  refresh(): void {
    this.show(this.build());
  }

  /** Moves the countdowns on; redraws the Claimed group only, unless the groups changed. */
  tick(): void {
    const next = this.build();
    const sameGroups = next.length === this.groups.length && next.every((g, i) => g.id === this.groups[i]?.id);
    if (!sameGroups) return this.show(next);
    const claimed = this.groups.find((g) => g.id === 'claimed');
    if (!claimed) return;
    // Keep the group objects VS Code holds, so it redraws just the Claimed subtree.
    claimed.children = next.find((g) => g.id === 'claimed')!.children;
    this.index();
    this.changed.fire(claimed);
    // An expired lease changes no version until a sweep: reload so it leaves the Claimed group.
    if (claimed.children.some((c) => c.kind === 'claim' && c.msLeft <= 0)) void this.model.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group':
        return new GroupTreeItem(node);
      case 'claim':
        return new ClaimTreeItem(node);
      case 'issue':
        return new IssueTreeItem(node);
      case 'detail':
        return new DetailTreeItem(node);
    }
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) return this.groups;
    if (node.kind === 'group') return node.children;
    if (node.kind === 'claim') return node.details;
    return [];
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.parents.get(node);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private build(): GroupNode[] {
    const state = this.model.state;
    return state.kind === 'ready' ? buildTree(state.snapshot, this.context()) : [];
  }

  private show(groups: GroupNode[]): void {
    this.groups = groups;
    this.index();
    this.changed.fire(undefined);
  }

  private index(): void {
    const claimed = this.groups.find((g) => g.id === 'claimed')?.children ?? [];
    this.decorations.update(claimed.flatMap((c) => (c.kind === 'claim' && c.warning ? [c.key] : [])));
    this.indexParents();
  }

  private indexParents(): void {
    this.parents.clear();
    for (const group of this.groups) {
      for (const child of group.children) {
        this.parents.set(child, group);
        if (child.kind === 'claim') for (const detail of child.details) this.parents.set(detail, child);
      }
    }
  }
}
