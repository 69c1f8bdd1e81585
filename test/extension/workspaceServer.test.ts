import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceBatonServer } from '../../extension/model/workspaceServer.js';
import { testDir } from '../helpers/test-dir.js';

function workspace(files: Record<string, string>): string {
  const root = testDir('baton-workspace-server-');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

describe('the workspace naming a baton server for VS Code', () => {
  it('finds it in .vscode/mcp.json, comments and trailing commas included, and in .mcp.json', () => {
    const vscodeJson = '{\n  // written by baton init\n  "servers": { "baton": { "command": "node", "args": ["cli.js", "serve"] }, },\n}\n';
    expect(workspaceBatonServer(workspace({ '.vscode/mcp.json': vscodeJson }))).toBe('.vscode/mcp.json');
    expect(workspaceBatonServer(workspace({ '.mcp.json': '{"mcpServers": {"Baton": {"command": "baton", "args": ["serve"]}}}' }))).toBe('.mcp.json');
  });

  it('finds none where no file names one, or a file is not what VS Code reads', () => {
    expect(workspaceBatonServer(workspace({}))).toBeNull();
    expect(workspaceBatonServer(workspace({ '.vscode/mcp.json': '{"servers": {"github": {"url": "https://example.com"}}}' }))).toBeNull();
    // Each file keeps its servers under its own key.
    expect(workspaceBatonServer(workspace({ '.mcp.json': '{"servers": {"baton": {}}}', '.vscode/mcp.json': '{"mcpServers": {"baton": {}}}' }))).toBeNull();
    expect(workspaceBatonServer(workspace({ '.mcp.json': 'not json', '.vscode/mcp.json': '[]' }))).toBeNull();
  });
});
