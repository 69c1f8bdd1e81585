// npm run test:vscode: installs the VS Code test host if needed, builds, then runs the
// extension's tests inside a real VS Code, and the UI check against the packaged .vsix.
// Usage: node test/vscode/run.mjs [--integration] [--ui]   (both when neither is given)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { here, root } from './host.mjs';
import { runIntegration } from './integration.mjs';
import { runUiCheck } from './ui-check.mjs';

const only = new Set(process.argv.slice(2).filter((a) => a.startsWith('--')));
const want = (phase) => only.size === 0 || only.has(`--${phase}`);

execFileSync('bash', [join(here, 'install.sh')], { stdio: 'inherit' });
mkdirSync(join(here, '.cache'), { recursive: true });
const runDir = mkdtempSync(join(here, '.cache', 'run-'));
let passed = 0;
let failed = 0;
try {
  if (want('integration')) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    const counts = await runIntegration(join(runDir, 'integration'));
    passed += counts.passed;
    failed += counts.failed;
  }
  if (want('ui')) {
    if (await runUiCheck(join(runDir, 'ui'))) passed++;
    else failed++;
  }
} catch (error) {
  console.error(`vscode: ${error.stack ?? error.message}`);
  failed++;
} finally {
  if (failed === 0 && !process.env.BATON_KEEP_TEST_RUN) rmSync(runDir, { recursive: true, force: true });
  else console.error(`vscode: files of this run kept in ${runDir}`);
}
// The UI check counts as one test.
console.log(`vscode: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
