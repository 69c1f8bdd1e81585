import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const sources = (dir: string) =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
/** Every module a file imports, statically or with `import()`. */
const imports = (file: string) => [...readFileSync(join(root, file), 'utf8').matchAll(/(?:from |import\()'([^']+)'/g)].map((m) => m[1]!);

describe('store boundaries', () => {
  it('lets forwarding, the opener, the CLI, the server and the extension reach the file store only through shared/store/file-access.ts', () => {
    const outside = [...sources('shared'), ...sources('mcp-server'), ...sources('extension')].filter((f) => !f.startsWith(join('shared', 'store')));
    expect(outside.length).toBeGreaterThan(50);
    const reaching = outside.flatMap((file) => imports(file).filter((i) => /(^|\/)store\/file\//.test(i)).map((i) => `${file}: ${i}`));
    expect(reaching).toEqual([]);
    // The rule has something to hold: the narrow interface is in use.
    expect(outside.filter((file) => imports(file).some((i) => i.endsWith('store/file-access.js'))).length).toBeGreaterThan(3);
  });

  it('keeps the answer journal on the file operations it is given, never node:fs itself', () => {
    expect(imports('shared/forwarding/answer-journal.ts').filter((i) => i === 'fs' || i.startsWith('node:fs'))).toEqual([]);
  });
});
