import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Names and sizes of a zip's entries, from its central directory. */
function zipEntries(file: string): Map<string, number> {
  const zip = readFileSync(file);
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    entries.set(zip.toString('utf8', at + 46, at + 46 + nameLength), size);
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

let dir: string;
let vsix: string;

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'extension.js')) || !existsSync(join(root, 'dist', 'cli.js'))) {
    throw new Error('dist/ is not built: run npm run build (npm test does) first');
  }
  dir = mkdtempSync(join(tmpdir(), 'baton-vsix-'));
  vsix = join(dir, `baton-${pkg.version}.vsix`);
  // The flags of `npm run package`, with the output sent elsewhere.
  const vsce = pkg.scripts.package.replace(/^npm run build && /, '').split(' ').slice(1);
  execFileSync(join(root, 'node_modules', '.bin', 'vsce'), [...vsce, '--out', vsix], { cwd: root, stdio: 'pipe' });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packaged extension', () => {
  it('holds the bundled extension, the server and its launcher, the wasm and the icons, and nothing else', () => {
    const entries = zipEntries(vsix);
    console.log(`${vsix} (${(statSync(vsix).size / 1024).toFixed(1)} KB):\n${[...entries].map(([n, s]) => `  ${n} ${s}`).join('\n')}`);
    expect([...entries.keys()].sort()).toEqual(
      [
        '[Content_Types].xml',
        'extension.vsixmanifest',
        'extension/package.json',
        'extension/readme.md',
        'extension/dist/extension.js',
        'extension/dist/cli.js',
        'extension/dist/baton.js',
        'extension/dist/sql-wasm.wasm',
        'extension/media/baton.svg',
      ].sort(),
    );
  });

  it('packs the files as built', () => {
    const entries = zipEntries(vsix);
    for (const file of ['dist/extension.js', 'dist/cli.js', 'dist/baton.js', 'dist/sql-wasm.wasm', 'media/baton.svg']) {
      expect(entries.get(`extension/${file}`), file).toBe(statSync(join(root, file)).size);
    }
  });

  it('declares what VS Code needs: the MCP provider, the view, its icon, and an engine it runs on', () => {
    expect(pkg.engines.vscode).toBe('^1.101.0');
    expect(pkg.main).toBe('./dist/extension.js');
    expect(pkg.contributes.mcpServerDefinitionProviders).toEqual([{ id: 'baton.mcpServer', label: 'Baton' }]);
    expect(pkg.contributes.viewsContainers.activitybar[0].icon).toBe('media/baton.svg');
    expect(pkg.contributes.views.baton.map((v: { id: string }) => v.id)).toEqual(['baton.claims']);
    expect(pkg.contributes.configuration.properties['baton.countdownWarningSeconds'].default).toBe(300);
  });

  it('declares every command it registers, with a title', () => {
    const declared = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
    const constants = readFileSync(join(root, 'extension', 'constants.ts'), 'utf8');
    const block = constants.slice(constants.indexOf('export const COMMANDS'), constants.indexOf('} as const'));
    expect([...block.matchAll(/'(baton\.[A-Za-z]+)'/g)].map((m) => m[1]).sort()).toEqual(declared);
  });
});
