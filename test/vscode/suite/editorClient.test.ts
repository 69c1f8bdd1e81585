import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { BatonApi } from '../../../extension/extension.js';
import type { ClaimNode, GroupNode } from '../../../extension/model/treeNodes.js';
import type { ClaimView, SessionRecord } from '../../../shared/types.js';
import { McpAgent } from '../agent/mcpAgent.js';
import { sleep, test, waitFor } from './harness.js';

/**
 * VS Code's own MCP client: the editor starts Baton's server from the extension's
 * definition provider, and the test calls Baton's tools only through the editor
 * (`vscode.lm.invokeTool`), as agent mode would. Nothing here spawns the server.
 */

const EXTENSION_ID = 'baton.baton';
/** The workspace's `.baton.json` sets this lease length (test/vscode/integration.mjs). */
const LEASE_SECONDS = 8;
/** Set for this test only: long enough for a read every second to keep the agent active on a loaded machine. */
const IDLE_SECONDS = 5;
/** The window renews every third of the lease length. */
const RENEW_PERIOD_MS = (LEASE_SECONDS * 1000) / 3;

/**
 * How VS Code names an MCP tool: `mcp_`, the server's label in lower case (with a number
 * added when another server of the workspace has that label too), `_`, the tool's name.
 */
let editorServer = 'baton';
const editorTool = (name: string): string => `mcp_${editorServer}_${name}`;

/** The labels of the Baton servers whose tools the editor offers now. */
const batonServers = (): string[] => [...new Set(vscode.lm.tools.map((t) => /^mcp_(baton\d*)_create_issue$/.exec(t.name)?.[1]).filter((l): l is string => l !== undefined))];

/**
 * Calls a Baton tool through the editor, and returns the answer's structured content (the one text part VS Code
 * gives back). Outside a chat, VS Code asks the user in a modal dialog before it runs a tool without `readOnlyHint`;
 * in an extension test run its dialog service answers yes.
 */
async function viaEditor<T>(name: string, input: Record<string, unknown> = {}): Promise<T> {
  const result = await vscode.lm.invokeTool(editorTool(name), { input, toolInvocationToken: undefined });
  const texts = result.content.filter((p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart);
  assert.equal(texts.length, 1, `${name}: one text part, got ${JSON.stringify(result.content)}`);
  return JSON.parse(texts[0]!.value) as T;
}

async function windowBaton(api: BatonApi) {
  const baton = await api.source.baton();
  assert.ok(baton.ok, 'the window opens the store');
  return baton.value;
}

async function liveClaim(api: BatonApi, key: string): Promise<ClaimView | undefined> {
  const claims = await (await windowBaton(api)).listClaims();
  assert.ok(claims.ok);
  return claims.value.claims.find((c) => c.key === key);
}

async function sessionOf(api: BatonApi, id: string): Promise<SessionRecord> {
  const sessions = await (await windowBaton(api)).listSessions();
  assert.ok(sessions.ok);
  const session = sessions.value.sessions.find((s) => s.id === id);
  assert.ok(session, `session ${id} is recorded`);
  return session;
}

function claimNode(api: BatonApi, key: string): ClaimNode | undefined {
  const group = api.tree.roots.find((g: GroupNode) => g.id === 'claimed');
  return group?.children.find((c): c is ClaimNode => c.kind === 'claim' && c.key === key);
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("VS Code starts Baton's server itself; the window keeps its lease alive while the editor calls tools, and lets it lapse once it stops", async () => {
  const extension = vscode.extensions.getExtension<BatonApi>(EXTENSION_ID)!;
  await waitFor('activation', () => extension.isActive, 15_000, 50);
  const api = extension.exports;
  const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const configFile = join(workspace, '.baton.json');
  const config = readFileSync(configFile, 'utf8');
  assert.equal(JSON.parse(config).leaseSeconds, LEASE_SECONDS);
  // The server reads `.baton.json` as it starts, the window at its next open of the store: write it before VS Code starts the server.
  writeFileSync(configFile, `${JSON.stringify({ ...JSON.parse(config), idleSeconds: IDLE_SECONDS })}\n`);
  const configuredAt = Date.now();
  // VS Code reads the workspace's `.mcp.json` too (an earlier test writes one with Configure Agents), and a server
  // named "baton" there collides with the provider's "Baton": VS Code then offers neither one's tools.
  const mcpJson = join(workspace, '.mcp.json');
  const mcpJsonAside = `${mcpJson}.aside`;
  const hadMcpJson = existsSync(mcpJson);
  if (hadMcpJson) renameSync(mcpJson, mcpJsonAside);
  // The window's renewals of the issue the editor's agent holds.
  let watched = '';
  const renewedAt: number[] = [];
  const listening = api.renewer.onDidRenew((report) => {
    if (report.renewed.some((l) => l.key === watched)) renewedAt.push(Date.now());
  });
  try {
    // No chat: the command behind the editor's "Start Server", waiting until the server's tools are live.
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    // The server of the `.mcp.json` moved aside above may stay listed a moment: wait for one Baton server. Which one
    // it is, the lease shows below: the provider's server carries this window's renewer.
    editorServer = (await waitFor('one Baton server among the editor\'s tools', () => (batonServers().length === 1 ? batonServers()[0] : undefined), 15_000, 200))!;
    const names = vscode.lm.tools.map((t) => t.name);
    for (const name of ['create_issue', 'next_issue', 'check_claim', 'list_claims'].map(editorTool))
      assert.ok(names.includes(name), `${name} is among the editor's tools: ${names.filter((n) => n.startsWith('mcp_')).join(', ')}`);
    assert.deepEqual(vscode.lm.tools.find((t) => t.name === editorTool('next_issue'))!.tags, ['mcp']);

    const created = await viaEditor<{ issue: { key: string; status: string } }>('create_issue', { title: 'Claimed through the editor', priority: 0 });
    assert.equal(created.issue.status, 'todo');
    // The queue may hand out an issue an earlier test left to expire first: whichever it gives is this agent's.
    const claim = await viaEditor<{ issue: { key: string }; lease: { expiresAt: string; renewer: string | null; fence: number } }>('next_issue');
    const { issue } = claim;
    assert.equal(claim.lease.renewer, api.renewerId, "the server VS Code started carries this window's renewer from the definition");
    const view = await liveClaim(api, issue.key);
    assert.ok(view, 'the claim is live');
    const session = await sessionOf(api, view.session);
    assert.ok(Date.parse(session.startedAt) >= configuredAt - 1000, 'the server was started by this test, after the idle limit was set');
    assert.ok(processRuns(session.pid), "the session's process is the one VS Code runs");
    await waitFor('the tree to show the claim as kept alive by this window', () => claimNode(api, issue.key)?.keptAliveHere, 3_000);

    // Active: a read through the editor every second, and never a heartbeat; only the window renews.
    watched = issue.key;
    const activeUntil = Date.now() + LEASE_SECONDS * 1000 * 1.5;
    let reads = 0;
    while (Date.now() < activeUntil) {
      const check = await viaEditor<{ held: boolean; youHold: boolean }>('check_claim', { key: issue.key });
      assert.ok(check.held && check.youHold, `held by the editor's session at read ${reads + 1}`);
      reads++;
      await sleep(1000);
    }
    const kept = await liveClaim(api, issue.key);
    assert.ok(renewedAt.length >= 2, `the window renewed it ${renewedAt.length} times while the editor read`);
    assert.ok(kept, `still held ${LEASE_SECONDS * 1.5} s into an ${LEASE_SECONDS} s lease, after ${reads} reads through the editor`);
    assert.ok(Date.parse(kept.expiresAt) > Date.parse(claim.lease.expiresAt), 'renewed past its first expiry');
    const lastActive = (await sessionOf(api, view.session)).lastActiveAt;
    assert.ok(lastActive && Date.now() - Date.parse(lastActive) < IDLE_SECONDS * 1000, `the reads count as activity (last active ${lastActive})`);

    // Idle: the server still runs, and the agent calls nothing.
    const stoppedAt = Date.now();
    let last = kept;
    await waitFor(
      'the idle lease to lapse',
      async () => {
        const now = await liveClaim(api, issue.key);
        if (now) last = now;
        return !now;
      },
      (IDLE_SECONDS + LEASE_SECONDS) * 1000 + RENEW_PERIOD_MS + 3_000,
      200,
    );
    const lapsedAfter = Date.now() - stoppedAt;
    console.log(`      lease gone ${lapsedAfter} ms after the editor's last call (idle limit ${IDLE_SECONDS} s, lease ${LEASE_SECONDS} s)`);
    assert.ok(Date.now() >= Date.parse(last.expiresAt) - 50, 'it ran out at the expiry it last had: never renewed after');
    assert.ok(lapsedAfter >= (LEASE_SECONDS * 1000) / 2, `it outlived the last call by part of a lease at least (${lapsedAfter} ms)`);
    assert.ok(processRuns(session.pid), 'the server VS Code started still runs: the lease lapsed for idleness, not death');
    const events = await (await windowBaton(api)).activity({ key: issue.key });
    assert.ok(events.ok);
    assert.ok(
      events.value.events.some((e) => e.type === 'renewal_stopped' && /idle/.test(e.detail)),
      `the window recorded why it stopped: ${JSON.stringify(events.value.events.map((e) => e.type))}`,
    );

    // Another agent can take the issue now.
    const cli = join(extension.extensionPath, 'dist', 'cli.js');
    const other = await McpAgent.start({ command: process.execPath, args: [cli, 'serve'], cwd: workspace, env: { BATON_AGENT: 'agent-d', BATON_RENEWER: undefined } }, 'agent-d');
    try {
      const taken = await other.ok<{ issue: { key: string }; lease: { agent: string; fence: number } }>('claim_issue', { key: issue.key });
      assert.equal(taken.lease.agent, 'agent-d');
      assert.ok(taken.lease.fence > claim.lease.fence, 'a new lease, with a higher fence');
    } finally {
      await other.close();
    }
  } finally {
    listening.dispose();
    writeFileSync(configFile, config);
    if (hadMcpJson) renameSync(mcpJsonAside, mcpJson);
  }
}, 90_000);

test("a workspace .mcp.json naming baton: the provider steps aside, and the server VS Code starts from that file carries this window's renewer", async () => {
  const api = vscode.extensions.getExtension<BatonApi>(EXTENSION_ID)!.exports;
  const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const mcpJson = join(workspace, '.mcp.json');
  // As `baton init` writes it: a server of the repository's own, with no renewer of its own.
  const writtenAt = Date.now();
  const result = await vscode.commands.executeCommand<{ written: string[] }>('baton.configureAgents', { files: ['.mcp.json'] });
  assert.deepEqual(result.written, [mcpJson]);
  const written = JSON.parse(readFileSync(mcpJson, 'utf8'));
  assert.equal(written.mcpServers.baton.env.BATON_RENEWER, undefined);
  try {
    await waitFor('the provider to step aside', () => api.mcpDefinitions().length === 0, 10_000, 100);
    // VS Code stops the provider's server of the test before, whose tools then leave the editor.
    await waitFor("the provider's server to leave the editor's tools", () => batonServers().length === 0, 10_000, 200);
    // VS Code takes the workspace's server back into its list a moment after the provider's left: start it once it is there.
    const started = async () => {
      if (batonServers().length === 0) await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
      return batonServers().length === 1 ? batonServers()[0] : undefined;
    };
    editorServer = (await waitFor("the workspace's Baton server among the editor's tools", started, 20_000, 500))!;
    const created = await viaEditor<{ issue: { key: string } }>('create_issue', { title: 'Claimed through the workspace server', priority: 0 });
    const claim = await viaEditor<{ issue: { key: string }; lease: { renewer: string | null; claimToken: string } }>('claim_issue', { key: created.issue.key });
    assert.equal(claim.lease.renewer, api.renewerId, "the workspace's server inherits this window's renewer from the extension host");
    const view = await liveClaim(api, created.issue.key);
    assert.ok(view, 'the claim is live');
    const session = await sessionOf(api, view.session);
    assert.ok(processRuns(session.pid), "the session's process is the one VS Code runs");
    assert.ok(Date.parse(session.startedAt) >= writtenAt - 1000, `the server was started from the .mcp.json written by this test (started ${session.startedAt})`);
    await waitFor('the tree to show the claim as kept alive by this window', () => claimNode(api, created.issue.key)?.keptAliveHere, 3_000);
    await viaEditor('release', { key: created.issue.key, claimToken: claim.lease.claimToken });
  } finally {
    rmSync(mcpJson, { force: true });
  }
  await waitFor('the provider to offer its server again', () => api.mcpDefinitions().length === 1, 10_000, 100);
}, 60_000);
