import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Where `agentrl init` takes the agentrl dependency from when `--agentrl` is not given. */
export type InitSource = { readonly spec: string; readonly from: string } | { readonly refuse: string };

const GIT_SPEC = /^(git\+|git:|github:|gitlab:|bitbucket:|https?:\/\/.*\.git(#.*)?$)/;

/**
 * The dependency spec a scaffolded project can install agentrl from, found from the agentrl that runs `init`
 * (agentrl is not on the npm registry, so a version range would not install):
 * - agentrl installed in a project (`…/node_modules/agentrl`): that project's own `agentrl` spec — a `file:` tarball
 *   (made absolute) or a git URL;
 * - a checkout or unpacked package with its packed tarball `agentrl-VERSION.tgz` beside `package.json`: that tarball;
 * - otherwise a refusal that says the commands to run.
 * @param root - the agentrl package folder (holds its package.json).
 * @param version - agentrl's version.
 */
export function initSource(root: string, version: string): InitSource {
  const tarball = `agentrl-${version}.tgz`;
  if (basename(dirname(root)) === 'node_modules') {
    const project = dirname(dirname(root));
    const spec = dependencySpec(join(project, 'package.json'));
    if (spec?.startsWith('file:')) {
      const abs = resolve(project, spec.slice('file:'.length));
      if (existsSync(abs) && abs.endsWith('.tgz')) return { spec: `file:${abs}`, from: `the tarball ${join(project, 'package.json')} installs` };
    }
    if (spec && GIT_SPEC.test(spec)) return { spec, from: `the git source ${join(project, 'package.json')} installs` };
  }
  if (existsSync(join(root, tarball))) return { spec: `file:${join(root, tarball)}`, from: `the tarball packed in ${root}` };
  return {
    refuse:
      `agentrl is not published on the npm registry yet, so a version range ("^${version}") would not install. ` +
      `Pack this agentrl and point the project at the tarball:\n  (cd ${root} && npm pack)\n  agentrl init DIR --agentrl file:${join(root, tarball)}\n` +
      `or give a git source: agentrl init DIR --agentrl git+https://HOST/OWNER/agentrl.git`,
  };
}

function dependencySpec(packageJson: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return pkg.dependencies?.['agentrl'] ?? pkg.devDependencies?.['agentrl'];
  } catch {
    return undefined;
  }
}
