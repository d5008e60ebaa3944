import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of the installed agentrl package: the `version` of the nearest `package.json` named `agentrl` above
 * this module (`dist/` when installed, `src/util/` in a checkout). `'unknown'` when none is found.
 */
export function agentrlVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (let k = 0; k < 6; k++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'agentrl' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look one level up
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return 'unknown';
}
