// Bundles the benchmark's entry points into dist/bench/ with the sql.js wasm file beside
// them. better-sqlite3 stays external: it is a native addon loaded from node_modules.
import { build } from 'esbuild';
import { nodeBundle, placeWasm } from '../esbuild.mjs';

const outdir = 'dist/bench';
placeWasm(outdir);

await build({
  ...nodeBundle,
  entryPoints: {
    run: 'bench/run.ts',
    worker: 'bench/worker.ts',
    'mcp-agent': 'bench/mcp-agent.ts',
    probe: 'bench/probe-child.ts',
    guard: 'bench/guard.ts',
    retention: 'bench/retention.ts',
    'hook-latency': 'bench/hook-latency.ts',
    'call-cost': 'bench/call-cost.ts',
  },
  outdir,
  external: ['better-sqlite3', 'pg-native', 'playwright-core'],
});
