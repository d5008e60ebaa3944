import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentRLError, MissingPeerDependencyError } from '../../src/index.js';
import { importOptionalPeer, isModuleNotFound } from '../../src/util/optional-peer.js';

// Hazard: an optional peer (playwright-core for screenshots) that the user did not install must fail with one typed
// error naming the feature and the install command — but only when that package itself is missing: a package that is
// there and fails while loading (its own dependency missing, a native addon unbuilt) must keep its own error.
const dir = mkdtempSync(join(tmpdir(), 'agentrl-optional-peer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const require = createRequire(import.meta.url);
const caught = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );
const ABSENT = 'agentrl-absent-peer-for-test';

describe('importOptionalPeer', () => {
  it.each([
    ['an ESM import of a bare name', () => import(ABSENT)],
    ['an ESM import of a subpath', () => import(`${ABSENT}/sub`)],
    ['a CJS require (as in the CJS bundle)', async () => require(ABSENT) as unknown],
  ])('turns %s that does not resolve into a MissingPeerDependencyError', async (_what, load) => {
    const err = await caught(importOptionalPeer(ABSENT, 'agentrl dashboard --screenshot', `npm install --save-dev ${ABSENT}@^1`, load));
    expect(err).toBeInstanceOf(MissingPeerDependencyError);
    expect(AgentRLError.isInstance(err)).toBe(true);
    const e = err as MissingPeerDependencyError;
    expect(e.code).toBe('MISSING_PEER_DEPENDENCY');
    expect(e.packageName).toBe(ABSENT);
    expect(e.message).toContain('agentrl dashboard --screenshot needs agentrl-absent-peer-for-test');
    expect(e.message).toContain(`npm install --save-dev ${ABSENT}@^1`);
    expect((e.cause as { code?: string }).code).toMatch(/MODULE_NOT_FOUND/);
  });

  it('keeps the error of a package that resolves but fails while loading (its own dependency missing)', async () => {
    const file = join(dir, 'broken-peer.mjs');
    writeFileSync(file, "import 'agentrl-dependency-of-the-peer';\nexport const x = 1;\n");
    const err = await caught(importOptionalPeer('broken-peer', 'feature', 'npm install broken-peer', () => import(pathToFileURL(file).href)));
    expect(err).not.toBeInstanceOf(MissingPeerDependencyError);
    expect((err as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('keeps an error thrown by the package while it loads', async () => {
    const file = join(dir, 'throwing-peer.mjs');
    writeFileSync(file, "throw new Error('native addon not built');\n");
    const err = await caught(importOptionalPeer('throwing-peer', 'feature', 'npm install throwing-peer', () => import(pathToFileURL(file).href)));
    expect((err as Error).message).toBe('native addon not built');
  });

  it('returns the module when it is installed', async () => {
    const zod = await importOptionalPeer('zod', 'feature', 'npm install zod', () => import('zod'));
    expect(typeof zod.z.object).toBe('function');
  });

  it('matches only the package named, not a prefix of another name', () => {
    const notFound = (message: string) => Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(isModuleNotFound(notFound("Cannot find package 'playwright-core' imported from /x.js"), 'playwright-core')).toBe(true);
    expect(isModuleNotFound(notFound("Cannot find package 'playwright-core-extra' imported from /x.js"), 'playwright-core')).toBe(false);
    expect(isModuleNotFound(notFound("Cannot find package 'playwright' imported from /x.js"), 'playwright-core')).toBe(false);
    expect(isModuleNotFound(new Error("Cannot find package 'playwright-core'"), 'playwright-core')).toBe(false);
    expect(isModuleNotFound('playwright-core', 'playwright-core')).toBe(false);
  });
});
