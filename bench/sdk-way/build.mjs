// Builds the server both ways for bench/sdk-way/run.ts, each into dist/sdk-way/<way>/
// with the `baton` launcher and sql.js's wasm beside it:
//   baton        as shipped (esbuild.mjs): the tools/list answer rendered at build time
//   sdk-listing  the tools/list answer rendered when first asked, as from the sources
// Run: node bench/sdk-way/build.mjs && node dist/sdk-way/run.js [--agents 8] [--calls 30] [--every 2000] [--stagger 250]
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeBundle, placeWasm } from '../../esbuild.mjs';

const require = createRequire(import.meta.url);

async function toolListing() {
  const dir = mkdtempSync(join(tmpdir(), 'baton-sdk-way-'));
  try {
    const outfile = join(dir, 'build-listing.cjs');
    await build({ ...nodeBundle, sourcemap: false, entryPoints: ['mcp-server/build-listing.ts'], outfile });
    return require(outfile).listing;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const listing = JSON.stringify(JSON.stringify(await toolListing()));
const ways = {
  baton: { define: { BATON_TOOL_LISTING: listing } },
  'sdk-listing': { define: {} },
};

await Promise.all([
  ...Object.entries(ways).flatMap(([way, options]) => {
    const outdir = `dist/sdk-way/${way}`;
    placeWasm(outdir);
    return [
      build({ ...nodeBundle, entryPoints: { baton: 'mcp-server/cli.ts' }, outdir, external: ['pg-native'], ...options }),
      build({ ...nodeBundle, entryPoints: { cli: 'mcp-server/launch.ts' }, outdir }),
    ];
  }),
  build({ ...nodeBundle, entryPoints: { run: 'bench/sdk-way/run.ts' }, outdir: 'dist/sdk-way', external: ['pg-native'] }),
]);
