// Runs test/vscode/suite inside a real VS Code extension host: the server of
// code-server 4.139 (VS Code 1.139) with the smoke-test driver, opened in headless
// Chromium, with the extension loaded from the working tree. Resolves to the counts of
// tests passed and failed.
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { deadline, freePort, here, launchBrowser, node24, root, serverMain, startProcess, stopProcess, waitForHttp } from './host.mjs';

const RUN_LIMIT_MS = 240_000;
/** What the suite's runner prints: results, their details, and the closing count. */
const SUITE_LINE = /^( {2}[✓✗] | {6}|\d+ passed, \d+ failed)/;

export async function runIntegration(runDir) {
  const suite = join(here, '.cache', 'suite', 'index.js');
  await build({
    entryPoints: [join(here, 'suite', 'index.ts')],
    outfile: suite,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });

  const ws = join(runDir, 'workspace');
  const tmp = join(runDir, 'tmp');
  for (const d of [ws, tmp]) mkdirSync(d, { recursive: true });
  execFileSync('git', ['init', '-q', ws]);
  writeFileSync(join(ws, '.baton.json'), `${JSON.stringify({ leaseSeconds: 8 })}\n`);
  const userData = join(runDir, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off' }));

  const port = await freePort();
  const server = startProcess(
    'vscode-server',
    node24,
    [
      serverMain,
      '--host', '127.0.0.1',
      '--port', String(port),
      '--without-connection-token',
      '--accept-server-license-terms',
      '--enable-smoke-test-driver',
      '--disable-telemetry',
      '--disable-workspace-trust',
      '--server-data-dir', join(runDir, 'server-data'),
      '--user-data-dir', userData,
      '--extensions-dir', join(runDir, 'extensions'),
    ],
    { env: { TMPDIR: tmp } },
  );
  let browser;
  try {
    const started = Date.now();
    await waitForHttp(`http://127.0.0.1:${port}/version`, 30_000, server);
    console.error(`vscode: server answered in ${Date.now() - started} ms`);
    browser = await launchBrowser(join(runDir, 'chromium'));
    const page = browser.pages()[0] ?? (await browser.newPage());
    let finish;
    let counts = { passed: 0, failed: 1 };
    const exitCode = new Promise((resolve) => (finish = resolve));
    // The page forwards every console of the workbench; only the suite's lines are shown, all are kept.
    const log = createWriteStream(join(runDir, 'console.log'));
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = (Array.isArray(args) ? args : [args]).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      log.write(`[${type}] ${text}\n`);
      if (!SUITE_LINE.test(text)) return;
      console.log(text);
      const count = /^(\d+) passed, (\d+) failed/.exec(text);
      if (count) counts = { passed: Number(count[1]), failed: Number(count[2]) };
    });
    await page.exposeFunction('codeAutomationExit', (code) => finish(code));
    const remote = (path) => `vscode-remote://127.0.0.1:${port}${path}`;
    const payload = [
      ['extensionDevelopmentPath', remote(root)],
      ['extensionTestsPath', remote(suite)],
      ['skipWelcome', 'true'],
    ];
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await page.goto(url);
    const code = await deadline(exitCode, RUN_LIMIT_MS, 'the extension tests');
    console.error(`vscode: extension tests exited with ${code} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return code === 0 ? counts : { passed: counts.passed, failed: Math.max(1, counts.failed) };
  } catch (error) {
    console.error(`vscode: ${error.message}\n${server.tail()}`);
    return { passed: 0, failed: 1 };
  } finally {
    await browser?.close().catch(() => undefined);
    await stopProcess(server);
  }
}
