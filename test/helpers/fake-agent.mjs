// A stand-in for a coding agent's process (Claude Code, Cursor): it starts its Baton server
// as its child over stdio and runs `baton hook <client>` as another child, as those clients
// do, so that the hook finds the agent's session by process ancestry. Driven by JSON lines
// on stdin, it answers each with one JSON line on stdout:
//   {"call": tool, "args": {...}}                         ->  {"result": structuredContent}
//   {"hook": {...hook input}, "client"?: "claude", "cwd"?} ->  {"status": exit status, "stdout": text}
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [cli] = process.argv.slice(2);
const env = { ...getDefaultEnvironment(), ...JSON.parse(process.env.FAKE_AGENT_ENV ?? '{}') };
const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve'], cwd: process.cwd(), env, stderr: 'ignore' });
const client = new Client({ name: 'claude-code', version: '1.0.0' });
await client.connect(transport);
process.stdout.write(`${JSON.stringify({ ready: true, serverPid: transport.pid })}\n`);

function hook(input, client = 'claude', cwd = process.cwd()) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'hook', client], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.on('close', (status) => resolve({ status, stdout }));
    child.stdin.end(JSON.stringify(input));
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line);
  if (command.call) {
    const answer = await client.callTool({ name: command.call, arguments: command.args ?? {} });
    process.stdout.write(`${JSON.stringify({ result: answer.structuredContent })}\n`);
  } else if (command.hook) {
    process.stdout.write(`${JSON.stringify(await hook(command.hook, command.client, command.cwd))}\n`);
  }
}
await client.close();
