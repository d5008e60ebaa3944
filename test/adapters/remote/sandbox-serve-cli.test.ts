import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { remoteSandbox } from '../../../adapters/remote/index.js';
import { registerBuiltinCommands, runCli } from '../../../apps/cli/index.js';

const MAIN = fileURLToPath(new URL('../../../apps/cli/main.ts', import.meta.url));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), signal: new AbortController().signal } };
}

describe('agentrl CLI', () => {
  it('lists commands, prints usage and rejects unknown commands and options', async () => {
    registerBuiltinCommands();
    registerBuiltinCommands(); // idempotent
    const a = io();
    expect(await runCli(['--help'], a.io)).toBe(0);
    expect(a.out.join('')).toContain('sandbox-serve');
    const b = io();
    expect(await runCli(['sandbox-serve', '--help'], b.io)).toBe(0);
    expect(b.out.join('')).toContain('--backend');
    const c = io();
    expect(await runCli(['nope'], c.io)).toBe(2);
    expect(c.err.join('')).toContain("unknown command 'nope'");
    const d = io();
    expect(await runCli(['sandbox-serve', '--frobnicate'], d.io)).toBe(2);
    const e = io();
    expect(await runCli(['sandbox-serve', '--backend', 'k8s'], e.io)).toBe(2);
    expect(e.err.join('')).toContain('--backend must be');
  });

  it('serves a sandbox over HTTP until SIGTERM (agentrl sandbox-serve --backend isolated-vm --port 0)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'sandbox-serve', '--backend', 'isolated-vm', '--port', '0', '--host', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 30_000;
      while (!/listening on (http:\/\/\S+)/.test(out) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      expect(url, out).toBeDefined();
      const sb = remoteSandbox({ url: url!, language: 'nodejs' });
      try {
        expect(await sb.checkHealth()).toBe(1);
        const r = await sb.run({ code: 'console.log(6 * 7)' });
        expect(r).toMatchObject({ status: 'ok', stdout: '42\n' });
      } finally {
        await sb.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('stopped');
  }, 60_000);
});
