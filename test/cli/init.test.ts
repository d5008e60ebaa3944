import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { registerBuiltinCommands } from '../../apps/cli/commands.js';
import { runCli } from '../../apps/cli/run-cli.js';
import { initSource } from '../../apps/cli/init-source.js';

const TGZ = 'file:/opt/pkgs/agentrl-0.1.0.tgz';
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
    const r = await cli('init', dir, '--agentrl', TGZ);
    expect(r.code, r.err).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'README.md', '.gitignore', 'src/env.ts', 'src/data.ts', 'src/main.ts']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
      expect(r.out).toContain(f);
    }
    const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(p).toMatchObject({ name: 'my-agent', type: 'module', dependencies: { agentrl: TGZ, zod: '^4.0.0' }, scripts: { start: 'tsx src/main.ts' } });
    expect(p.allowScripts).toEqual({ agentrl: false, [TGZ]: false, 'core-js': false, esbuild: true, protobufjs: false });
    expect(p.devDependencies).toEqual({
      typescript: pkg.devDependencies['typescript'],
      tsx: pkg.devDependencies['tsx'],
      '@types/node': pkg.devDependencies['@types/node'],
    });
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# my-agent\n[\s\S]*npm install\nnpm start/);
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain("from 'agentrl'");
    expect(r.out).toContain('npm install && npm start');
    expect(p.dependencies).toEqual({ agentrl: TGZ, zod: '^4.0.0' }); // nothing MCP-only
  });

  it('writes the mcp project: the MCP SDK and the memory server pinned at the versions agentrl is tested with', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'agentrl-init-')), 'mcp-agent');
    const r = await cli('init', dir, '--template', 'mcp', '--agentrl', TGZ);
    expect(r.code, r.err).toBe(0);
    for (const f of ['package.json', 'tsconfig.json', 'README.md', '.gitignore', 'src/env.ts', 'src/data.ts', 'src/main.ts', 'src/memory-server.mjs']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    const p = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(p.dependencies).toEqual({
      agentrl: TGZ,
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
    const r = await cli('init', dir, '--agentrl', TGZ);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is not empty/);
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe('{"mine":true}');
    const empty = mkdtempSync(join(tmpdir(), 'agentrl-init-'));
    mkdirSync(join(empty, 'x'));
    for (const args of [
      ['--template', 'nope', join(empty, 'x')],
      ['--template', 'retool', join(empty, 'x')],
      ['--template', '', join(empty, 'x')],
      ['a', 'b'],
      ['--frobnicate'],
    ]) {
      const u = await cli('init', ...args);
      expect(u.code, args.join(' ')).toBe(2);
      expect(u.err).toContain('Usage: agentrl init');
    }
    expect(existsSync(join(empty, 'x', 'package.json'))).toBe(false);
    expect((await cli('init', '--template', 'retool', join(empty, 'x'))).err).toMatch(/no retool template: .*1500 SFT steps.*npm run retool/);
  });
});

// Hazard (issue 39): agentrl is not on the npm registry, so `init` without --agentrl wrote "^0.1.0" and its
// "npm install && npm start" failed with a 404. It now writes the source it was installed from, or refuses.
describe('agentrl init without --agentrl: a dependency that installs, or a refusal with the commands', () => {
  const layout = (files: Record<string, string>) => {
    const base = mkdtempSync(join(tmpdir(), 'agentrl-src-'));
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(dirname(join(base, f)), { recursive: true });
      writeFileSync(join(base, f), text);
    }
    return base;
  };
  it('installed in a project from a tarball: that tarball, made absolute', () => {
    const base = layout({
      'pkgs/agentrl-0.2.0.tgz': 'x',
      'app/package.json': JSON.stringify({ dependencies: { agentrl: 'file:../pkgs/agentrl-0.2.0.tgz' } }),
      'app/node_modules/agentrl/package.json': '{"name":"agentrl"}',
    });
    expect(initSource(join(base, 'app/node_modules/agentrl'), '0.2.0')).toMatchObject({ spec: `file:${join(base, 'pkgs/agentrl-0.2.0.tgz')}` });
  });
  it('installed from git: the same git spec', () => {
    for (const spec of ['git+https://example.org/me/agentrl.git#v0.1.0', 'github:me/agentrl']) {
      const base = layout({
        'app/package.json': JSON.stringify({ devDependencies: { agentrl: spec } }),
        'app/node_modules/agentrl/package.json': '{"name":"agentrl"}',
      });
      expect(initSource(join(base, 'app/node_modules/agentrl'), '0.1.0')).toMatchObject({ spec });
    }
  });
  it('a checkout with its packed tarball: the tarball', () => {
    const base = layout({ 'agentrl/package.json': '{"name":"agentrl"}', 'agentrl/agentrl-0.1.0.tgz': 'x' });
    expect(initSource(join(base, 'agentrl'), '0.1.0')).toMatchObject({ spec: `file:${join(base, 'agentrl/agentrl-0.1.0.tgz')}` });
  });
  it('neither (a checkout never packed, a registry range, a tarball that is gone): refuses with npm pack and --agentrl', () => {
    for (const [files, root] of [
      [{ 'agentrl/package.json': '{"name":"agentrl"}' }, 'agentrl'],
      [
        { 'app/package.json': JSON.stringify({ dependencies: { agentrl: '^0.1.0' } }), 'app/node_modules/agentrl/package.json': '{}' },
        'app/node_modules/agentrl',
      ],
      [
        { 'app/package.json': JSON.stringify({ dependencies: { agentrl: 'file:../gone.tgz' } }), 'app/node_modules/agentrl/package.json': '{}' },
        'app/node_modules/agentrl',
      ],
    ] as const) {
      const base = layout(files);
      const s = initSource(join(base, root), '0.1.0');
      expect('refuse' in s && s.refuse).toMatch(
        /not published on the npm registry[\s\S]*npm pack\)\n {2}agentrl init DIR --agentrl file:.*agentrl-0\.1\.0\.tgz/,
      );
    }
  });
});
