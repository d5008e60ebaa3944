import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultAdaptersDir, loadSandboxAdapters, sandboxAdapter } from '../../src/sandbox/adapter-registry.js';
import { numberFlag } from '../../src/sandbox/adapter.js';
import { UsageError } from '../../src/errors/usage-error.js';
import { registerBuiltinCommands, runCli } from '../../apps/cli/index.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/sandbox-adapters/', import.meta.url));
const ADAPTERS = fileURLToPath(new URL('../../adapters/', import.meta.url));

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), signal: new AbortController().signal } };
}

describe('sandbox adapter registry', () => {
  it('finds every adapter folder of the repository by its descriptor, named like its folder', async () => {
    expect(defaultAdaptersDir().replace(/\/$/, '')).toBe(ADAPTERS.replace(/\/$/, ''));
    const adapters = await loadSandboxAdapters();
    const all = readdirSync(ADAPTERS, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    // pyodide runs in a page's Web Workers (agentrl/browser), so Node's registry and the CLI cannot create it: the
    // one folder without a descriptor, by design.
    expect(all.filter((f) => !existsSync(`${ADAPTERS}${f}/adapter.ts`))).toEqual(['pyodide']);
    const folders = all.filter((f) => f !== 'pyodide');
    expect(adapters.map((a) => a.name)).toEqual(folders);
    expect(adapters.filter((a) => a.servable).map((a) => a.name)).toEqual(['docker', 'isolated-vm', 'local']);
  });

  it('discovers an adapter that exists only in its own folder, and skips folders without a descriptor', async () => {
    const adapters = await loadSandboxAdapters(`${FIXTURES}found`);
    expect(adapters.map((a) => a.name)).toEqual(['echo']);
    const echo = await sandboxAdapter('echo', `${FIXTURES}found`);
    const sandbox = await echo.create(echo.optionsFromFlags({ prefix: '> ' }, {}));
    expect((await sandbox.run({ code: 'hi' })).stdout).toBe('> hi');
    expect(echo.capacity({})).toBe(3);
  });

  it('refuses a descriptor whose name is not its folder, and names the adapters when one is missing', async () => {
    await expect(loadSandboxAdapters(`${FIXTURES}misnamed`)).rejects.toThrow(/names its adapter 'right', not its folder's name 'wrong'/);
    await expect(sandboxAdapter('k8s')).rejects.toThrow(/no sandbox adapter 'k8s' \(found: docker, isolated-vm, local, remote\)/);
  });

  it("maps flags to each adapter's options and capacity", async () => {
    const local = await sandboxAdapter('local');
    expect(local.optionsFromFlags({ workers: '3' }, { timeoutMs: 500 })).toEqual({ workers: 3, timeoutMs: 500 });
    expect(local.capacity({ workers: 3 })).toBe(3);
    const docker = await sandboxAdapter('docker');
    const dockerOptions = docker.optionsFromFlags({ 'pool-size': '5', bind: ['/usr:/usr:ro'] }, { memoryMb: 256 });
    expect(dockerOptions).toEqual({ image: 'agentrl-sandbox:local', memoryMb: 256, poolSize: 5, binds: ['/usr:/usr:ro'] });
    expect(docker.capacity(dockerOptions)).toBe(5);
    expect(docker.capacity(docker.optionsFromFlags({}, {}))).toBe(2);
    const ivm = await sandboxAdapter('isolated-vm');
    expect(ivm.capacity(ivm.optionsFromFlags({}, {}))).toBe(1);
    const remote = await sandboxAdapter('remote');
    expect(remote.optionsFromFlags({ 'sandbox-url': 'http://127.0.0.1:1' }, { timeoutMs: 9 })).toEqual({ url: 'http://127.0.0.1:1', timeoutMs: 9 });
  });

  it('refuses malformed numbers in flags', () => {
    for (const bad of ['x', '', ' ', '1e', 'NaN', 'Infinity']) {
      expect(() => numberFlag({ workers: bad }, 'workers')).toThrow(UsageError);
    }
    expect(() => numberFlag({ bind: ['1'] }, 'bind')).toThrow(UsageError);
    expect(numberFlag({ workers: '2' }, 'workers')).toBe(2);
    expect(numberFlag({}, 'workers')).toBeUndefined();
  });

  it('drives agentrl sandbox-serve: usage lists the servable adapters and their flags; bad flags exit 2', async () => {
    registerBuiltinCommands();
    const help = io();
    expect(await runCli(['sandbox-serve', '--help'], help.io)).toBe(0);
    const text = help.out.join('');
    expect(text).toContain('docker | isolated-vm | local (default local)');
    expect(text).toMatch(/--workers <n>\s+isolated-vm: worker processes; local: concurrent calls/);
    expect(text).toMatch(/--pool-size <n>\s+docker: warm containers/);
    expect(text).not.toContain('--sandbox-url');
    for (const args of [
      ['--backend', 'remote'],
      ['--backend', 'k8s'],
      ['--workers', 'many'],
      ['--backend', 'docker', '--pool-size', 'x'],
    ]) {
      const r = io();
      expect(await runCli(['sandbox-serve', ...args], r.io)).toBe(2);
      expect(r.err.join('')).toMatch(/--backend must be docker, isolated-vm, local|expects a number/);
    }
  });
});
