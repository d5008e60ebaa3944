import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { registerBuiltinCommands } from '../../src/cli/commands.js';
import { runCli } from '../../src/cli/run-cli.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; devDependencies: Record<string, string> };

async function cli(...argv: string[]) {
  registerBuiltinCommands();
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), signal: new AbortController().signal });
  return { code, out, err };
}

// The scaffold is installed and run from the packed tarball by scripts/check-package.sh (CI); here: what it writes
// and how it refuses bad usage without touching anything.
describe('agentrl init', () => {
  it('writes the tool-env project: zod ^4 beside agentrl (its peer), pinned dev tools, .gitignore, named README', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentrl-init-')), 'My Agent');
    const r = await cli('init', dir);
    expect(r.code, r.err).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'README.md', '.gitignore', 'src/env.ts', 'src/data.ts', 'src/main.ts']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
      expect(r.out).toContain(f);
    }
    const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(p).toMatchObject({ name: 'my-agent', type: 'module', dependencies: { agentrl: `^${pkg.version}`, zod: '^4.0.0' }, scripts: { start: 'tsx src/main.ts' } });
    expect(p.allowScripts).toEqual({ agentrl: false, 'core-js': false, esbuild: true, protobufjs: false });
    expect(p.devDependencies).toEqual({ typescript: pkg.devDependencies['typescript'], tsx: pkg.devDependencies['tsx'], '@types/node': pkg.devDependencies['@types/node'] });
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# my-agent\n[\s\S]*npm install\nnpm start/);
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain("from 'agentrl'");
    expect(r.out).toContain('npm install && npm start');
    expect(p.dependencies).toEqual({ agentrl: `^${pkg.version}`, zod: '^4.0.0' }); // nothing MCP-only
  });

  it('writes the mcp project: the MCP SDK and the memory server pinned at the versions agentrl is tested with', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentrl-init-')), 'mcp-agent');
    const r = await cli('init', dir, '--template', 'mcp');
    expect(r.code, r.err).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'README.md', '.gitignore', 'src/env.ts', 'src/data.ts', 'src/main.ts', 'src/memory-server.mjs']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(p.dependencies).toEqual({
      agentrl: `^${pkg.version}`,
      zod: '^4.0.0',
      '@modelcontextprotocol/sdk': pkg.devDependencies['@modelcontextprotocol/sdk'],
      '@modelcontextprotocol/server-memory': pkg.devDependencies['@modelcontextprotocol/server-memory'],
    });
    expect(readFileSync(join(dir, 'src/env.ts'), 'utf8')).toContain('mcpEnvironment');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# mcp-agent\n/);
    expect(r.out).toContain('(template mcp)');
  });

  it('--agentrl and --name set the dependency spec and package name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-init-'));
    const r = await cli('init', dir, '--agentrl', 'file:../agentrl-0.1.0.tgz', '--name', 'cal-agent');
    expect(r.code, r.err).toBe(0);
    const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(p).toMatchObject({ name: 'cal-agent', dependencies: { agentrl: 'file:../agentrl-0.1.0.tgz' } });
    // npm keys a tarball's install-script review by its resolved source; without it every install warns about agentrl's prepare
    expect(p.allowScripts).toMatchObject({ agentrl: false, [`file:${join(dirname(dir), 'agentrl-0.1.0.tgz')}`]: false });
    const abs = mkdtempSync(join(tmpdir(), 'agentrl-init-'));
    expect((await cli('init', abs, '--agentrl', 'file:/opt/pkgs/agentrl-0.1.0.tgz')).code).toBe(0);
    expect(JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8')).allowScripts).toMatchObject({ 'file:/opt/pkgs/agentrl-0.1.0.tgz': false });
  });

  it('refuses a non-empty folder (exit 1, nothing overwritten) and bad usage (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentrl-init-'));
    writeFileSync(join(dir, 'package.json'), '{"mine":true}');
    const r = await cli('init', dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not empty/);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe('{"mine":true}');
    const empty = mkdtempSync(join(tmpdir(), 'agentrl-init-'));
    mkdirSync(join(empty, 'x'));
    for (const args of [['--template', 'nope', join(empty, 'x')], ['--template', 'retool', join(empty, 'x')], ['--template', '', join(empty, 'x')], ['a', 'b'], ['--frobnicate']]) {
      const u = await cli('init', ...args);
      expect(u.code, args.join(' ')).toBe(2);
      expect(u.err).toContain('Usage: agentrl init');
    }
    expect(existsSync(join(empty, 'x', 'package.json'))).toBe(false);
    expect((await cli('init', '--template', 'retool', join(empty, 'x'))).err).toMatch(/no retool template: .*1500 SFT steps.*npm run retool/);
  });
});
