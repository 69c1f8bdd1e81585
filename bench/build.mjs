// Bundles the benchmark's entry points into dist/bench/ with the sql.js wasm file beside
// them. better-sqlite3 stays external: it is a native addon loaded from node_modules.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const outdir = 'dist/bench';
mkdirSync(outdir, { recursive: true });
copyFileSync(join(dirname(require.resolve('sql.js')), 'sql-wasm.wasm'), join(outdir, 'sql-wasm.wasm'));

await build({
  entryPoints: {
    run: 'bench/run.ts',
    worker: 'bench/worker.ts',
    'mcp-agent': 'bench/mcp-agent.ts',
    probe: 'bench/probe-child.ts',
  },
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  external: ['better-sqlite3', 'pg-native'],
});
