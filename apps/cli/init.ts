import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { agentrlVersion } from 'agentrl/internal';
import { initSource } from './init-source.js';
import type { CliCommand, CliIo } from './registry.js';
import { ConfigError } from 'agentrl/internal';
import { InternalError } from 'agentrl/internal';

/** Templates `agentrl init` can scaffold (folders of `assets/templates/`). */
export const INIT_TEMPLATES = ['tool-env', 'mcp'] as const;

/** Packages a template needs besides agentrl and zod, pinned to the versions agentrl is tested with (its devDependencies). */
const TEMPLATE_DEPENDENCIES: Record<string, readonly string[]> = {
  'tool-env': [],
  mcp: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server-memory'],
};

const USAGE = `Usage: agentrl init [DIR] [--template tool-env|mcp] [--agentrl SPEC]

Scaffolds a project that trains a tool-using agent on the embedded CPU model and prints its held-out table:
package.json, tsconfig.json, src/env.ts (a typed tool environment and its reward), src/data.ts (dataset
generator, cold-start demonstrations), src/main.ts (cold start → RL → held-out eval) and a README. Then:
  cd DIR && npm install && npm start

Options:
  --template <name>   tool-env (default): one typed tool, cold start (1000 steps) + RL (20 steps)
                      mcp: the same task over a real MCP server from npm (the official memory server;
                      mcpEnvironment), cold start + RL
                      (no retool template: ReTool's cold start from scratch is 1500 SFT steps, 23 min on
                      one core, before RL; clone the agentrl repository and run \`npm run retool\`, which
                      starts from the checkpoint shipped there)
  --agentrl <spec>    the agentrl dependency written to package.json, e.g. file:/path/agentrl-0.1.0.tgz or
                      a git URL. agentrl is not on the npm registry yet; by default the source this agentrl
                      was installed from (the project's tarball or git spec), or the tarball packed beside
                      it (npm pack); without either, init refuses and prints the commands
  --name <name>       package name (default: DIR's name)`;

/**
 * npm keys the `allowScripts` entry of a dependency from a tarball by its resolved source (`file:/abs/x.tgz`, relative
 * paths taken from the project folder), not by its name; without that entry every install warns about agentrl's
 * `prepare` script.
 */
function sourceKey(projectDir: string, spec: string): Record<string, false> {
  return spec.startsWith('file:') ? { [`file:${resolve(projectDir, spec.slice('file:'.length))}`]: false } : {};
}

/** The `assets/templates` folder of this installation (walks up from this module: `dist/` or `apps/cli/`). */
function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 6; k++) {
    const candidate = join(dir, 'assets', 'templates');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new InternalError('cannot find assets/templates next to this agentrl installation');
}

/** The versions the scaffold pins for its own tools: the ones agentrl is built and tested with. */
function devVersions(): Record<string, string> {
  const d = agentrlDevDependencies();
  return { typescript: d['typescript'] ?? '5.9.3', tsx: d['tsx'] ?? '4.20.6', '@types/node': d['@types/node'] ?? '20.19.25' };
}

/** The folder of this agentrl installation (the one whose package.json is named agentrl). */
function agentrlRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 6; k++) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'agentrl') return dir;
    } catch {
      // not here: one level up
    }
    dir = dirname(dir);
  }
  return dirname(fileURLToPath(import.meta.url));
}

/** agentrl's own devDependencies (exact versions), read from this installation's package.json; {} when not found. */
function agentrlDevDependencies(): Record<string, string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let k = 0; k < 6; k++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; devDependencies?: Record<string, string> };
      if (pkg.name === 'agentrl') return pkg.devDependencies ?? {};
    } catch {
      // not here: one level up
    }
    dir = dirname(dir);
  }
  return {};
}

/** The template's own dependencies at agentrl's tested versions. @throws InternalError when agentrl's package.json lacks one. */
function templateDependencies(template: string): Record<string, string> {
  const d = agentrlDevDependencies();
  return Object.fromEntries(
    (TEMPLATE_DEPENDENCIES[template] ?? []).map((name) => {
      const v = d[name];
      if (!v) throw new InternalError(`cannot find the tested version of ${name} in agentrl's package.json`);
      return [name, v];
    }),
  );
}

/**
 * Writes the template into `dir` (created; must be empty or absent), with `package.json` naming `agentrlSpec` and
 * zod `^4.0.0` (agentrl's peer). Returns the files written, relative to `dir`.
 * @throws ConfigError when `dir` exists and is not empty (path `dir`), or the template is unknown (path `template`).
 */
export async function scaffold(opts: { dir: string; template: string; agentrlSpec: string; name: string }): Promise<string[]> {
  if (!(INIT_TEMPLATES as readonly string[]).includes(opts.template))
    throw new ConfigError('agentrl init options', [
      { path: 'template', message: `unknown template '${opts.template}' (templates: ${INIT_TEMPLATES.join(', ')})` },
    ]);
  if (existsSync(opts.dir) && (await readdir(opts.dir)).length > 0)
    throw new ConfigError('agentrl init options', [{ path: 'dir', message: `${opts.dir} is not empty; give a new or empty folder` }]);
  await mkdir(opts.dir, { recursive: true });
  await cp(join(templatesDir(), opts.template), opts.dir, { recursive: true });
  await rename(join(opts.dir, 'gitignore'), join(opts.dir, '.gitignore')); // npm pack drops files named .gitignore
  const readme = join(opts.dir, 'README.md');
  // A function replacer: the name is inserted as written (a string replacement would expand `$&`, `$'`, `` $` ``, `$$`).
  await writeFile(
    readme,
    readFileSync(readme, 'utf8').replaceAll('__NAME__', () => opts.name),
  );
  const pkg = {
    name: opts.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: { start: 'tsx src/main.ts', typecheck: 'tsc -p tsconfig.json' },
    dependencies: { agentrl: opts.agentrlSpec, zod: '^4.0.0', ...templateDependencies(opts.template) },
    devDependencies: devVersions(),
    // npm 11 asks about every install script it has not been told about: these are the ones this project pulls in.
    // agentrl's `prepare` builds dist/ only from a git checkout (a tarball ships it); esbuild's (under tsx) checks
    // its binary; core-js's and protobufjs's only print messages.
    allowScripts: { agentrl: false, ...sourceKey(opts.dir, opts.agentrlSpec), 'core-js': false, esbuild: true, protobufjs: false },
  };
  await writeFile(join(opts.dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  const files: string[] = [];
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name), join(rel, e.name));
      else files.push(join(rel, e.name));
    }
  };
  await walk(opts.dir, '');
  return files.sort();
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: { template: { type: 'string', default: 'tool-env' }, agentrl: { type: 'string' }, name: { type: 'string' } },
    });
  } catch (e) {
    io.stderr(`agentrl init: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    io.stderr(`agentrl init: give at most one folder, got ${positionals.length}\n\n${USAGE}\n`);
    return 2;
  }
  const template = values.template ?? 'tool-env';
  if (template === 'retool') {
    io.stderr(
      `agentrl init: there is no retool template: ReTool's cold start from scratch takes 1500 SFT steps (23 min on one core) before RL, and its checkpoint ships only in the agentrl repository; there, run \`npm run retool\` (examples/retool/README.md)\n\n${USAGE}\n`,
    );
    return 2;
  }
  if (!(INIT_TEMPLATES as readonly string[]).includes(template)) {
    io.stderr(`agentrl init: unknown template '${template}' (templates: ${INIT_TEMPLATES.join(', ')})\n\n${USAGE}\n`);
    return 2;
  }
  const dir = resolve(positionals[0] ?? '.');
  const name =
    values.name ??
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[._-]+/, '');
  let agentrlSpec = values.agentrl;
  let from = '';
  if (agentrlSpec === undefined) {
    const source = initSource(agentrlRoot(), agentrlVersion());
    if ('refuse' in source) {
      io.stderr(`agentrl init: ${source.refuse}\n`);
      return 2;
    }
    agentrlSpec = source.spec;
    from = ` (agentrl from ${source.from}: ${source.spec})`;
  }
  try {
    const files = await scaffold({ dir, template, agentrlSpec, name: name || 'agentrl-project' });
    io.stdout(
      `agentrl init: wrote ${files.length} files to ${dir} (template ${template})${from}:\n${files.map((f) => `  ${f}`).join('\n')}\n\nNext:\n  cd ${positionals[0] ?? '.'} && npm install && npm start\n`,
    );
    return 0;
  } catch (e) {
    io.stderr(`agentrl init: ${(e as Error).message}\n`);
    return 1;
  }
}

/** `agentrl init`: scaffolds a project that trains a tool environment on the embedded model. */
export const initCommand: CliCommand = {
  name: 'init',
  summary: 'scaffold a project: typed tool environment, cold start → RL → held-out table',
  usage: USAGE,
  run,
};
