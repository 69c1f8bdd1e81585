import { McpAgent } from '../agent/mcpAgent.js';

/**
 * Fills a repository with the work of a few agents, through Baton's real server, so the
 * Claims view has every group to show: claims (one close to expiry), a resumable issue,
 * ready, blocked, in review and done. The two agents holding claims keep running until
 * `close`, as agents at work do.
 */
export async function seed(options: { cli: string; cwd: string; node: string }): Promise<{ close(): Promise<void> }> {
  const start = (name: string, env: Record<string, string> = {}) =>
    McpAgent.start({ command: options.node, args: [options.cli, 'serve'], cwd: options.cwd, env: { BATON_AGENT: name, ...env } }, name);
  const claude = await start('claude-code');
  const copilot = await start('copilot', { BATON_LEASE_SECONDS: '240' });
  const codex = await start('codex');
  try {
    const issues: Array<[string, number, string[], string[]?]> = [
      ['Parse the config file', 1, ['parser']],
      ['Write the parser tests', 2, ['parser', 'tests']],
      ['Document the settings', 3, ['docs']],
      ['Add a --json flag to ls', 2, ['cli']],
      ['Ship 1.0', 1, [], ['BAT-4']],
      ['Fix Windows paths in the store', 2, ['store']],
      ['Set up CI', 2, ['infra']],
      ['Cache the dispatch query', 3, ['perf']],
    ];
    for (const [title, priority, labels, blockedBy] of issues) {
      await claude.ok('create_issue', { title, priority, labels, ...(blockedBy ? { blockedBy } : {}) });
    }
    type Claimed = { lease: { claimToken: string } };
    const token = async (agent: McpAgent, key: string) => (await agent.ok<Claimed>('claim_issue', { key })).lease.claimToken;

    const done = await token(codex, 'BAT-7');
    await codex.ok('done', { key: 'BAT-7', claimToken: done, summary: 'CI runs the tests on every push.' });
    const review = await token(codex, 'BAT-6');
    await codex.ok('submit_for_review', { key: 'BAT-6', claimToken: review, summary: 'Paths are normalised before hashing.' });
    const docs = await token(codex, 'BAT-3');
    await codex.ok('checkpoint', { key: 'BAT-3', claimToken: docs, note: 'Drafted the settings table; examples still to write.' });
    await codex.ok('release', { key: 'BAT-3', claimToken: docs, note: 'Out of time; the checkpoint says where it stands.' });

    const parse = await token(claude, 'BAT-1');
    await claude.ok('checkpoint', { key: 'BAT-1', claimToken: parse, note: 'Header and sections parse; next: includes.', state: { done: ['header', 'sections'] } });
    await token(copilot, 'BAT-2');
  } catch (error) {
    await Promise.all([claude.close(), copilot.close()]);
    throw error;
  } finally {
    await codex.close();
  }
  return { close: async () => void (await Promise.all([claude.close(), copilot.close()])) };
}
