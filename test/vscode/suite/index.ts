import './extension.test.js';
import './editorClient.test.js';
import { runAll } from './harness.js';

/** The entry VS Code calls with `extensionTestsPath`: rejects when a test failed, which sets the exit code. */
export async function run(): Promise<void> {
  const failed = await runAll();
  if (failed > 0) throw new Error(`${failed} test(s) failed`);
}
