// The esbuild plugin every browser build of agentrl uses (the package's `agentrl/browser` entry in tsup.config.ts,
// scripts/check-browser-bundle.mjs, the demo page): an import of a platform module `src/platform/<name>.js` whose
// `<name>.browser.ts` exists resolves to that file instead, as a package.json "browser" map would.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** @returns {import('esbuild').Plugin} */
export function browserPlatform() {
  return {
    name: 'agentrl-browser-platform',
    setup(build) {
      build.onResolve({ filter: /platform\/[a-z0-9-]+\.js$/ }, (args) => {
        const target = resolve(args.resolveDir, args.path);
        if (!target.includes(`${join('src', 'platform')}/`)) return undefined;
        const browser = join(dirname(target), target.slice(dirname(target).length + 1).replace(/\.js$/, '.browser.ts'));
        return existsSync(browser) ? { path: browser } : undefined;
      });
    },
  };
}
