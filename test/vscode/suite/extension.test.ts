import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../../extension/extension.js';
import type { ClaimNode, GroupNode } from '../../../extension/model/treeNodes.js';
import { McpAgent } from '../agent/mcpAgent.js';
import { sleep, suiteTeardown, test, waitFor } from './harness.js';

const EXTENSION_ID = 'baton.baton';
/** The workspace's `.baton.json` sets this lease length, so lease tests take seconds. */
const LEASE_SECONDS = 8;

let api: BatonApi;
let workspace: string;
const agents: McpAgent[] = [];

/** An agent started here, as by another client: without the window's renewer, which this process's environment carries for VS Code's own servers. */
function startAgent(name: string, env: Record<string, string> = {}): Promise<McpAgent> {
  const cli = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
  return McpAgent.start({ command: process.execPath, args: [cli, 'serve'], cwd: workspace, env: { BATON_AGENT: name, BATON_RENEWER: undefined, ...env } }, name).then((a) => {
    agents.push(a);
    return a;
  });
}

function claimed(key: string): ClaimNode | undefined {
  const group = api.tree.roots.find((g: GroupNode) => g.id === 'claimed');
  return group?.children.find((c): c is ClaimNode => c.kind === 'claim' && c.key === key);
}

async function liveClaims(): Promise<Array<{ key: string; expiresAt: string; lastRenewedAt: string }>> {
  const baton = await api.source.baton();
  assert.ok(baton.ok);
  const claims = await baton.value.listClaims();
  assert.ok(claims.ok);
  return claims.value.claims;
}

/** `0:07 left` → 7 */
function secondsShown(description: string): number {
  const match = /(\d+):(\d\d) left/.exec(description);
  assert.ok(match, `no countdown in "${description}"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

test('activates on a git workspace without being asked', async () => {
  workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const extension = vscode.extensions.getExtension<BatonApi>(EXTENSION_ID);
  assert.ok(extension, 'the extension is installed');
  await waitFor('activation', () => extension.isActive, 15_000, 50);
  api = extension.exports;
  assert.match(api.renewerId, /^vscode:/);
  await waitFor('the model to settle', () => api.model.state.kind !== 'loading', 10_000);
  assert.equal(api.model.state.kind, 'noDatabase', 'a repository without Baton gets no database file from the editor');
});

let firstKey = '';

test('shows an issue claimed by a separate agent process within a second', async () => {
  const agent = await startAgent('agent-a');
  await agent.ok('create_issue', { title: 'Warm up the database' });
  await waitFor('the new database to be read', () => api.model.state.kind === 'ready', 5_000);
  await vscode.commands.executeCommand('baton.claims.focus');
  await waitFor('the Claims view to show', () => api.view.visible, 5_000);
  // Each round: another process claims, the view shows it; then it releases, and the view drops it.
  const delays: number[] = [];
  for (let round = 0; round < 5; round++) {
    const { issue } = await agent.ok<{ issue: { key: string } }>('create_issue', { title: `Round ${round}`, priority: 0 });
    await waitFor('the issue in Ready', () => api.tree.roots.find((g) => g.id === 'ready')?.children.some((c) => c.key === issue.key), 2_000);
    const sent = Date.now();
    const claim = await agent.ok<{ issue: { key: string }; lease: { claimToken: string } }>('next_issue');
    assert.equal(claim.issue.key, issue.key);
    await waitFor('the claim in the tree', () => claimed(issue.key), 1_000, 5);
    delays.push(Date.now() - sent);
    await agent.ok('done', { key: issue.key, claimToken: claim.lease.claimToken });
    await waitFor('the claim to leave the tree', () => !claimed(issue.key), 1_000, 5);
  }
  delays.sort((a, b) => a - b);
  console.log(`      claim visible in the tree ${delays[2]} ms (median), ${delays[4]} ms (max) after next_issue was sent`);

  const created = await agent.ok<{ issue: { key: string } }>('create_issue', { title: 'Parse the config file', priority: 0 });
  const claim = await agent.ok<{ issue: { key: string } }>('next_issue');
  firstKey = claim.issue.key;
  assert.equal(firstKey, created.issue.key);
  await waitFor('the claim in the tree', () => claimed(firstKey), 1_000, 5);
  const node = claimed(firstKey)!;
  assert.equal(node.agent, 'agent-a');
  const item = api.tree.getTreeItem(node);
  assert.match(String(item.description), /^agent-a · 0:0\d left · active (just now|\d+ s ago)$/);
  assert.match(String(item.contextValue), /\bclaim\b/);
  assert.ok(!/\bmine\b/.test(String(item.contextValue)), 'an agent this window did not start is not kept alive by it');
  const details = api.tree.getChildren(node).map((d) => api.tree.getTreeItem(d).label);
  assert.deepEqual(details, ['Holder', 'Branch', 'Worktree', 'Renewer', 'Last renewal', 'Fence', 'Checkpoint']);
});

test('keeps the issue lists still while the view is out of sight, and reads them as it shows again', async () => {
  const agent = agents[0]!;
  const inReady = (key: string) => api.tree.roots.find((g) => g.id === 'ready')?.children.some((c) => c.key === key) ?? false;
  await vscode.commands.executeCommand('workbench.view.explorer');
  await waitFor('the Claims view to be hidden', () => !api.view.visible, 5_000);
  const { issue } = await agent.ok<{ issue: { key: string } }>('create_issue', { title: 'Made while nobody looks' });
  // Claims still follow (the status bar and the renewer read them); the lists wait. A claim
  // made after the issue shows that the window has read the store since the issue was made.
  const { issue: control } = await agent.ok<{ issue: { key: string } }>('create_issue', { title: 'Claimed while nobody looks' });
  await agent.ok('claim_issue', { key: control.key });
  await waitFor('the claim made while the view was hidden', () => claimed(control.key), 5_000);
  assert.equal(inReady(issue.key), false, 'the lists were read while the view was hidden');
  await vscode.commands.executeCommand('baton.claims.focus');
  await waitFor('the issue in Ready once the view shows', () => inReady(issue.key), 2_000);
});

test('the countdown of a claim goes down every second', async () => {
  // The view redraws once a second, at any phase of the lease's own seconds, so over 2.5 s the text moves on by 1 to 4.
  const first = secondsShown(String(api.tree.getTreeItem(claimed(firstKey)!).description));
  await sleep(2_500);
  const later = secondsShown(String(api.tree.getTreeItem(claimed(firstKey)!).description));
  assert.ok(later < first && later >= first - 4, `went from ${first} to ${later}`);
  assert.ok(claimed(firstKey)!.warning, `an ${LEASE_SECONDS} s lease is inside the 300 s warning period`);
});

test('releasing a claim from the tree frees the lease in the database', async () => {
  await vscode.workspace.getConfiguration('baton').update('confirmRelease', false, vscode.ConfigurationTarget.Global);
  const released = await vscode.commands.executeCommand<boolean>('baton.release', claimed(firstKey));
  assert.equal(released, true);
  assert.ok(!(await liveClaims()).some((c) => c.key === firstKey), 'no live lease left');
  const agent = agents[0]!;
  const check = await agent.ok<{ held: boolean }>('check_claim', { key: firstKey });
  assert.equal(check.held, false);
  await waitFor('the claim to leave the tree', () => !claimed(firstKey), 1_000);
  assert.ok(api.tree.roots.find((g) => g.id === 'doing')?.children.some((c) => c.key === firstKey), 'the released issue waits in Doing');
});

test("the renewer keeps this window's agent's lease alive while it runs, and lets it expire once it is killed", async () => {
  const agent = await startAgent('agent-b', { BATON_RENEWER: api.renewerId });
  await agent.ok('create_issue', { title: 'Write the parser tests' });
  const { issue, lease } = await agent.ok<{ issue: { key: string }; lease: { expiresAt: string } }>('next_issue');
  const claimedAt = Date.now();
  await waitFor('the claim to be kept alive here', () => claimed(issue.key)?.keptAliveHere, 3_000);
  assert.match(String(api.tree.getTreeItem(claimed(issue.key)!).contextValue), /\bmine\b/);
  // The agent never heartbeats: only the window renews it.
  await sleep(LEASE_SECONDS * 1000 * 1.5);
  const alive = (await liveClaims()).find((c) => c.key === issue.key);
  assert.ok(alive, `still held ${Date.now() - claimedAt} ms after a ${LEASE_SECONDS} s claim`);
  assert.ok(Date.parse(alive.expiresAt) > Date.parse(lease.expiresAt), 'renewed past its first expiry');

  await agent.kill();
  const killedAt = Date.now();
  const before = (await liveClaims()).find((c) => c.key === issue.key);
  assert.ok(before, 'still live right after the kill');
  await waitFor('the lease to expire', async () => !(await liveClaims()).some((c) => c.key === issue.key), LEASE_SECONDS * 1000 + 3_000, 200);
  console.log(`      lease gone ${Date.now() - killedAt} ms after its holder was killed`);
  assert.ok(Date.now() >= Date.parse(before.expiresAt) - 50, 'it ran out at the expiry it had when the holder died: never renewed after');
  await waitFor('the claim to leave the tree', () => !claimed(issue.key), 2_000);
}, 60_000);

test('the MCP definition provider offers the bundled server, and that server answers tools/list', async () => {
  const [definition, ...more] = api.mcpDefinitions();
  assert.ok(definition, 'one definition');
  assert.equal(more.length, 0);
  assert.equal(definition.label, 'Baton');
  assert.equal(definition.command, process.execPath);
  assert.equal(definition.args[1], 'serve');
  assert.ok(definition.args[0]!.endsWith(join('dist', 'cli.js')));
  assert.equal(definition.env.ELECTRON_RUN_AS_NODE, '1');
  assert.equal(definition.env.MALLOC_ARENA_MAX, '1');
  assert.equal(definition.env.BATON_RENEWER, api.renewerId);
  const env = Object.fromEntries(Object.entries(definition.env).map(([k, v]) => [k, v === null ? undefined : String(v)]));
  const server = await McpAgent.start({ command: definition.command, args: definition.args, cwd: definition.cwd?.fsPath ?? workspace, env }, 'copilot');
  agents.push(server);
  const tools = await server.listTools();
  for (const name of ['next_issue', 'claim_issue', 'heartbeat', 'checkpoint', 'release', 'done', 'list_claims']) assert.ok(tools.includes(name), `${name} is offered`);
});

test('the commands: copy branch, open checkpoint, show activity, renew now, configure agents', async () => {
  const agent = await startAgent('agent-c');
  await agent.ok('create_issue', { title: 'Tidy the README', priority: 0 });
  const { issue, lease } = await agent.ok<{ issue: { key: string }; lease: { branch: string; claimToken: string } }>('next_issue');
  await agent.ok('checkpoint', { key: issue.key, claimToken: lease.claimToken, note: 'Rewrote the intro; next: the examples.' });
  const node = await waitFor('the claim in the tree', () => (claimed(issue.key)?.hasCheckpoint ? claimed(issue.key) : undefined), 2_000);

  assert.equal(await vscode.commands.executeCommand('baton.copyBranch', node), lease.branch);
  assert.equal(await vscode.env.clipboard.readText(), lease.branch);

  const checkpoint = await vscode.commands.executeCommand<vscode.TextEditor>('baton.openCheckpoint', node);
  assert.equal(checkpoint.document.uri.toString(), `baton-checkpoint:/${issue.key}.md`);
  assert.match(checkpoint.document.getText(), /Rewrote the intro; next: the examples\./);
  assert.match(checkpoint.document.getText(), /Checkpoint by \*\*agent-c\*\*/);

  const activity = await vscode.commands.executeCommand<vscode.TextEditor>('baton.showActivity', issue.key);
  assert.match(activity.document.getText(), new RegExp(`# History of ${issue.key}[\\s\\S]*\\| checkpoint \\|`));

  const report = await vscode.commands.executeCommand<{ keys: string[] }>('baton.renewNow', node);
  assert.ok(!report.keys.includes(issue.key), 'a lease of an agent this window did not start is not renewed');

  const result = await vscode.commands.executeCommand<{ written: string[] }>('baton.configureAgents', { files: ['.mcp.json'] });
  assert.deepEqual(result.written, [join(workspace, '.mcp.json')]);
  const written = JSON.parse(Buffer.from(await vscode.workspace.fs.readFile(vscode.Uri.file(join(workspace, '.mcp.json')))).toString());
  assert.deepEqual(written.mcpServers.baton.args.slice(1), ['serve']);
  assert.equal(written.mcpServers.baton.env.BATON_RENEWER, undefined, "another client's server is not this window's to renew");
  // VS Code reads the workspace's `.mcp.json` too: left there, its "baton" server would collide with the provider's.
  rmSync(join(workspace, '.mcp.json'));
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
});

test("the renewer keeps an active agent's lease and lets an idle one's lapse past idleSeconds, so it can be claimed again", async () => {
  const settings = join(workspace, '.baton.json');
  const IDLE_SECONDS = 4;
  writeFileSync(settings, `${JSON.stringify({ leaseSeconds: LEASE_SECONDS, idleSeconds: IDLE_SECONDS })}\n`);
  try {
    await waitFor('the window to read the idle limit', async () => {
      const baton = await api.source.baton();
      return baton.ok && baton.value.config.idleSeconds === IDLE_SECONDS;
    }, 10_000, 200);
    const active = await startAgent('agent-active', { BATON_RENEWER: api.renewerId });
    const idle = await startAgent('agent-idle', { BATON_RENEWER: api.renewerId });
    await active.ok('create_issue', { title: 'Keep reading', priority: 0 });
    await active.ok('create_issue', { title: 'Left alone', priority: 0 });
    const kept = (await active.ok<{ issue: { key: string } }>('next_issue')).issue.key;
    const left = (await idle.ok<{ issue: { key: string } }>('next_issue')).issue.key;
    const claimedAt = Date.now();
    // One reads every second; the other's server stays up and calls nothing.
    const reading = setInterval(() => void active.call('list_claims').catch(() => undefined), 1_000);
    try {
      await waitFor('the idle agent’s lease to lapse', async () => !(await liveClaims()).some((c) => c.key === left), (IDLE_SECONDS + LEASE_SECONDS) * 1000 + 8_000, 250);
      const lapsedAfter = Date.now() - claimedAt;
      console.log(`      idle agent's lease gone ${lapsedAfter} ms after its last call`);
      assert.ok(lapsedAfter >= (IDLE_SECONDS + LEASE_SECONDS) * 1000 - LEASE_SECONDS * 400, 'not before the idle limit and the lease have run');
      // The active agent's lease, as short, lives on past the same span.
      assert.ok((await liveClaims()).some((c) => c.key === kept), 'the active agent keeps its lease');
      const other = await startAgent('agent-next');
      assert.equal((await other.ok<{ lease: { key: string } }>('claim_issue', { key: left })).lease.key, left);
    } finally {
      clearInterval(reading);
    }
  } finally {
    writeFileSync(settings, `${JSON.stringify({ leaseSeconds: LEASE_SECONDS })}\n`);
  }
}, 60_000);

suiteTeardown('closes its agents and restores the settings it changed', async () => {
  await Promise.all(agents.map((a) => a.close()));
  await vscode.workspace.getConfiguration('baton').update('confirmRelease', undefined, vscode.ConfigurationTarget.Global);
});
