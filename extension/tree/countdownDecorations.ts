import * as vscode from 'vscode';

const SCHEME = 'baton-claim';

/** The resource a claim row carries, so decorations can colour its label. */
export function claimUri(key: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/${key}` });
}

/** Colours the label of a claim in its warning period (the icon takes the colour too). */
export class CountdownDecorations implements vscode.FileDecorationProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri[]>();
  readonly onDidChangeFileDecorations = this.changed.event;
  private warning = new Set<string>();

  /** Takes the keys now in their warning period and announces those that changed. */
  update(keys: Iterable<string>): void {
    const next = new Set(keys);
    const changed = [...next].filter((k) => !this.warning.has(k)).concat([...this.warning].filter((k) => !next.has(k)));
    this.warning = next;
    if (changed.length > 0) this.changed.fire(changed.map(claimUri));
  }

  provideFileDecoration(uri: vscode.Uri): vscode.FileDecoration | undefined {
    if (uri.scheme !== SCHEME || !this.warning.has(uri.path.slice(1))) return undefined;
    return new vscode.FileDecoration(undefined, 'Expires soon', new vscode.ThemeColor('list.warningForeground'));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
