// Builds the two entry points into dist/ and places sql.js's wasm file beside them,
// so the bundle and the .vsix run without node_modules.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
};

mkdirSync('dist', { recursive: true });
copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), 'dist/sql-wasm.wasm');

await Promise.all([
  build({
    ...common,
    entryPoints: { cli: 'mcp-server/cli.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    // pg optionally requires pg-native; Baton uses the pure JavaScript client.
    external: ['pg-native'],
  }),
  // `npm run demo`: the orchestrator and the agent processes it starts.
  build({
    ...common,
    entryPoints: { demo: 'demo/demo.ts', 'demo-agent': 'demo/agent.ts' },
    outdir: 'dist',
    external: ['pg-native'],
  }),
  build({
    ...common,
    entryPoints: { extension: 'extension/extension.ts' },
    outdir: 'dist',
    external: ['vscode', 'pg-native'],
  }),
]);
if (watch) console.error('esbuild: watch mode is not supported; run npm run build again.');
