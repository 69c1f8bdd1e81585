// The UI check: installs the packaged .vsix into code-server, opens a repository that
// agents are working on in headless Chromium, and checks what a person sees in the
// Claims view: the claims with countdowns that move. Saves a screenshot in the run's
// folder, and over docs/screenshot-claims.png when BATON_UPDATE_SCREENSHOT=1.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { codeServer, deadline, freePort, here, launchBrowser, node24, root, startProcess, stopProcess, waitForHttp, WORKBENCH_SETTINGS } from './host.mjs';

const CHECK_LIMIT_MS = 120_000;
const README_SCREENSHOT = join(root, 'docs', 'screenshot-claims.png');

export async function runUiCheck(runDir) {
  const SCREENSHOT = join(runDir, 'screenshot-claims.png');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  execFileSync('npm', ['run', '--silent', 'package'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const vsix = join(root, `${pkg.name}-${pkg.version}.vsix`);

  const ws = join(runDir, 'acme-app');
  const dirs = { userData: join(runDir, 'user-data'), extensions: join(runDir, 'extensions'), tmp: join(runDir, 'tmp') };
  for (const d of [ws, ...Object.values(dirs), join(dirs.userData, 'User')]) mkdirSync(d, { recursive: true });
  execFileSync('git', ['init', '-q', ws]);
  writeFileSync(join(ws, 'README.md'), '# A repository that agents work on\n');
  writeFileSync(
    join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify({ ...WORKBENCH_SETTINGS, 'workbench.colorTheme': 'Default Dark Modern' }),
  );

  const seedJs = join(here, '.cache', 'seed.mjs');
  await build({ entryPoints: [join(here, 'ui', 'seed.ts')], outfile: seedJs, bundle: true, platform: 'node', format: 'esm', logLevel: 'warning' });
  const { seed } = await import(seedJs);
  let agents;
  const startAgents = async () => {
    agents = await seed({ cli: join(root, 'dist', 'cli.js'), cwd: ws, node: process.execPath });
  };

  const port = await freePort();
  const config = join(runDir, 'code-server.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const common = ['--config', config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
  const env = { PATH: `${join(node24, '..')}:${process.env.PATH}`, TMPDIR: dirs.tmp };
  execFileSync(node24, [codeServer, ...common, '--install-extension', vsix], { env: { ...process.env, ...env }, stdio: 'pipe' });
  const installed = readdirSync(dirs.extensions).filter((d) => d.startsWith(`${pkg.publisher}.${pkg.name}-`));
  if (installed.length !== 1) throw new Error(`the .vsix did not install: ${readdirSync(dirs.extensions).join(', ')}`);

  const server = startProcess('code-server', node24, [
    codeServer, ...common,
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    ws,
  ], { env });
  let browser;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 30_000, server);
    browser = await launchBrowser(join(runDir, 'chromium'));
    const page = browser.pages()[0] ?? (await browser.newPage());
    await deadline(check(page, port, ws, startAgents, SCREENSHOT), CHECK_LIMIT_MS, 'the UI check');
    console.error(`ui: ${installed[0]} from the .vsix shows the claims; screenshot in ${SCREENSHOT}`);
    return true;
  } catch (error) {
    console.error(`ui: FAILED: ${error.message}`);
    if (browser) await browser.pages()[0]?.screenshot({ path: join(runDir, 'failure.png') }).catch(() => undefined);
    return false;
  } finally {
    await browser?.close().catch(() => undefined);
    await stopProcess(server);
    await agents?.close();
  }
}

/** Rows of the Claims view as text. */
async function rows(page) {
  return page.locator('.pane:has(.pane-header:has-text("Claims")) .monaco-list-row').allInnerTexts();
}

async function check(page, port, ws, startAgents, screenshot) {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 30_000 });
  const icon = page.locator('.activitybar .action-item a[aria-label^="Baton"]').first();
  await icon.waitFor({ timeout: 30_000 });
  await icon.click();
  // A repository no agent has used yet: the view tells a new user what to do.
  const pane = page.locator('.pane:has(.pane-header:has-text("Claims"))');
  await pane.locator('.welcome-view-content:has-text("No open issues yet")').waitFor({ timeout: 30_000 });
  await pane.locator('.welcome-view-content a:has-text("Create Issue"), .welcome-view-content .monaco-button:has-text("Create Issue")').first().waitFor({ timeout: 5_000 });

  // Agents start work while the window is open; their claims appear without a reload.
  await startAgents();
  const seeded = Date.now();
  // Copilot's claim is the agents' last step.
  await pane.locator('.monaco-list-row:has-text("BAT-2"):has-text("copilot")').first().waitFor({ timeout: 10_000 });
  console.error(`ui: the last claim showed in the view ${Date.now() - seeded} ms after the agent had it`);

  // Claims show at every change; the issue lists follow within a second.
  const expected = ['Claimed', 'Doing', 'Ready', 'Blocked', 'In review', 'BAT-1', 'claude-code', 'copilot', 'resumed', 'blocked by BAT-4'];
  let first = '';
  for (const until = Date.now() + 3_000; ; await page.waitForTimeout(100)) {
    first = (await rows(page)).join('\n');
    const missing = expected.find((text) => !first.includes(text));
    if (!missing) break;
    if (Date.now() > until) throw new Error(`the Claims view lacks "${missing}":\n${first}`);
  }
  console.error(`ui: every section showed ${Date.now() - seeded} ms after the agents were done`);
  const countdown = (all) => {
    const line = all.split('\n').find((l) => l.includes('copilot'));
    const m = /(\d+):(\d\d) left/.exec(all.slice(all.indexOf('copilot')));
    if (!m) throw new Error(`no countdown after copilot:\n${all}`);
    return Number(m[1]) * 60 + Number(m[2]);
  };
  const before = countdown(first);
  await page.waitForTimeout(2_200);
  const after = countdown((await rows(page)).join('\n'));
  if (!(after < before)) throw new Error(`the countdown did not move: ${before} then ${after}`);
  console.error(`ui: copilot's countdown went from ${before} s to ${after} s in 2.2 s`);

  const status = await page.locator('.statusbar-item:has-text("claims")').first().innerText();
  if (!/2 claims · \d+:\d\d/.test(status)) throw new Error(`status bar shows "${status}"`);

  // Widen the side bar and open the first claim, as a person looking at it would.
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  if (sidebar) {
    const edge = { x: sidebar.x + sidebar.width + 1, y: sidebar.y + sidebar.height / 2 };
    await page.mouse.move(edge.x, edge.y);
    await page.mouse.down();
    await page.mouse.move(edge.x + 330, edge.y, { steps: 10 });
    await page.mouse.up();
  }
  await pane.locator('.monaco-list-row:has-text("BAT-1")').first().click();
  await pane.locator('.monaco-list-row:has-text("Branch")').first().waitFor({ timeout: 5_000 });
  const holder = await pane.locator('.monaco-list-row:has-text("Holder")').first().innerText();
  if (!holder.includes('running')) throw new Error(`the holder of a running agent shows "${holder}"`);
  // The checkpoint row opens the read-only checkpoint document.
  await pane.locator('.monaco-list-row:has-text("Checkpoint")').first().click();
  const editor = page.locator('.editor-instance .view-lines');
  await editor.filter({ hasText: 'Header and sections parse' }).first().waitFor({ timeout: 10_000 });
  await page.mouse.move(900, 600);
  await page.waitForTimeout(600);
  mkdirSync(join(root, 'docs'), { recursive: true });
  await page.screenshot({ path: screenshot });
  if (process.env.BATON_UPDATE_SCREENSHOT === '1') copyFileSync(screenshot, README_SCREENSHOT);
}
