import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const sources = (dir: string) =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
const imports = (file: string) => [...readFileSync(join(root, file), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);

describe('extension layering', () => {
  it('keeps the model, the renewer and the database watcher free of vscode, so they run under plain Node', () => {
    const pure = [...sources('extension/model'), 'extension/renewer.ts', 'extension/watchDatabase.ts', 'extension/constants.ts'];
    for (const file of pure) expect(imports(file), file).not.toContain('vscode');
  });

  it('never imports the MCP server: the extension starts it as a process', () => {
    for (const file of sources('extension')) expect(imports(file).filter((i) => i.includes('mcp-server')), file).toEqual([]);
  });

  it('keeps extension.ts a composition root of under 100 lines', () => {
    expect(readFileSync(join(root, 'extension/extension.ts'), 'utf8').split('\n').length).toBeLessThan(100);
  });
});
