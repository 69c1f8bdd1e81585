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
let failed = 0;
try {
  if (want('integration')) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    const code = await runIntegration(join(runDir, 'integration'));
    if (code !== 0) failed++;
  }
  if (want('ui')) {
    const ok = await runUiCheck(join(runDir, 'ui'));
    if (!ok) failed++;
  }
} finally {
  if (failed === 0 && !process.env.BATON_KEEP_TEST_RUN) rmSync(runDir, { recursive: true, force: true });
  else console.error(`vscode: files of this run kept in ${runDir}`);
}
process.exit(failed === 0 ? 0 : 1);
