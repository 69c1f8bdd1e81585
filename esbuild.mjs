// Builds the entry points into dist/ and places sql.js's wasm file beside them,
// so the bundle and the .vsix run without node_modules. The benchmark's build
// (bench/build.mjs) takes its options and the wasm copy from here.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * The options of every Node bundle Baton builds. Whitespace and syntax are minified, names
 * are kept (stack traces stay readable; the source maps hold the rest): a server started
 * from the 1.4 MB bundle instead of the 2.1 MB one stood ~4 MB lower after 1,500 work
 * cycles at 10k issues (97 MB instead of 100–101; peak 101–102 instead of 104–105).
 */
export const nodeBundle = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  logLevel: 'warning',
  // jsonc-parser's main file is a UMD build whose inner requires a bundle cannot follow.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
};

/** Copies sql.js's wasm file into `outdir`, where the bundles look for it first. */
export function placeWasm(outdir) {
  mkdirSync(outdir, { recursive: true });
  copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), join(outdir, 'sql-wasm.wasm'));
}

/**
 * The server's tools/list answer, rendered here once so that no server spends its start
 * on it (mcp-server/tool-listing.ts): the listing module is bundled apart and run, and
 * its answer handed to the server's bundle as a constant.
 */
async function renderToolListing() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-build-'));
  try {
    const outfile = join(dir, 'build-listing.cjs');
    await build({ ...nodeBundle, sourcemap: false, entryPoints: ['mcp-server/build-listing.ts'], outfile });
    return require(outfile).listing;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await buildAll();

async function buildAll() {
  placeWasm('dist');
  const toolListing = await renderToolListing();

  await Promise.all([
    build({
      ...nodeBundle,
      entryPoints: { baton: 'mcp-server/cli.ts' },
      outdir: 'dist',
      // pg optionally requires pg-native; Baton uses the pure JavaScript client.
      external: ['pg-native'],
      // A string: esbuild would turn an object into a module of its own, initialised from every other.
      define: { BATON_TOOL_LISTING: JSON.stringify(JSON.stringify(toolListing)) },
    }),
    // `baton guard check`, which the pre-push hook runs on every push: the store and the push rule only.
    build({
      ...nodeBundle,
      entryPoints: { guard: 'mcp-server/guard-main.ts' },
      outdir: 'dist',
      external: ['pg-native'],
    }),
    // `baton hook <client>`, which the bin runs without loading dist/baton.js (mcp-server/hook-main.ts).
    build({
      ...nodeBundle,
      entryPoints: { hook: 'mcp-server/hook-main.ts', 'hook-open': 'mcp-server/cli/hook-open.ts' },
      outdir: 'dist',
      external: ['pg-native'],
    }),
    // The `baton` bin: starts dist/baton.js from a code cache (mcp-server/launch.ts).
    build({
      ...nodeBundle,
      entryPoints: { cli: 'mcp-server/launch.ts' },
      outdir: 'dist',
      banner: { js: '#!/usr/bin/env node' },
    }),
    // `npm run demo`: the orchestrator and the agent processes it starts.
    build({
      ...nodeBundle,
      entryPoints: { demo: 'demo/demo.ts', 'demo-agent': 'demo/agent.ts' },
      outdir: 'dist',
      external: ['pg-native'],
    }),
    build({
      ...nodeBundle,
      entryPoints: { extension: 'extension/extension.ts' },
      outdir: 'dist',
      external: ['vscode', 'pg-native'],
    }),
  ]);
}
