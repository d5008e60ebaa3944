import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SandboxAdapter } from './adapter.js';
import { SandboxAdapterError } from '../errors/sandbox-errors.js';

const DESCRIPTOR_FILES = ['adapter.js', 'adapter.ts'];

function descriptorFile(dir: string): string | undefined {
  return DESCRIPTOR_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
}

function hasDescriptors(adaptersDir: string): boolean {
  return (
    existsSync(adaptersDir) && statSync(adaptersDir).isDirectory() && readdirSync(adaptersDir).some((d) => descriptorFile(join(adaptersDir, d)) !== undefined)
  );
}

/**
 * The `adapters/` folder next to this module's tree: `dist/adapters` in the package, `<repo>/adapters` from source
 * (the nearest ancestor folder holding an `adapters/<name>/adapter.{js,ts}`).
 * @throws SandboxAdapterError when there is none (a broken install).
 */
export function defaultAdaptersDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (hasDescriptors(join(dir, 'adapters'))) return join(dir, 'adapters');
    if (dirname(dir) === dir) throw new SandboxAdapterError('agentrl: no sandbox adapters found (an adapters/<name>/adapter.js beside the package)');
  }
}

function isAdapter(v: unknown): v is SandboxAdapter {
  const a = v as Partial<SandboxAdapter> | undefined;
  return (
    typeof a === 'object' &&
    a !== null &&
    typeof a.name === 'string' &&
    typeof a.create === 'function' &&
    typeof a.optionsFromFlags === 'function' &&
    typeof a.capacity === 'function' &&
    typeof a.flags === 'object'
  );
}

/**
 * Every sandbox adapter in `adaptersDir`, sorted by name: each `adapters/<name>/adapter.{js,ts}` whose
 * `sandboxAdapter` export is a {@link SandboxAdapter} named like its folder. Only the descriptors are imported.
 * @throws SandboxAdapterError when a descriptor file does not export a descriptor, or its name differs from its folder's.
 */
export async function loadSandboxAdapters(adaptersDir: string = defaultAdaptersDir()): Promise<SandboxAdapter[]> {
  const found: SandboxAdapter[] = [];
  for (const folder of readdirSync(adaptersDir).sort()) {
    const file = descriptorFile(join(adaptersDir, folder));
    if (file === undefined) continue;
    const mod = (await import(pathToFileURL(file).href)) as { sandboxAdapter?: unknown };
    if (!isAdapter(mod.sandboxAdapter))
      throw new SandboxAdapterError(`agentrl: ${file} does not export a sandboxAdapter descriptor ({ name, flags, optionsFromFlags, create, capacity })`);
    if (mod.sandboxAdapter.name !== folder)
      throw new SandboxAdapterError(`agentrl: ${file} names its adapter '${mod.sandboxAdapter.name}', not its folder's name '${folder}'`);
    found.push(mod.sandboxAdapter);
  }
  return found;
}

/**
 * The adapter called `name` (see {@link loadSandboxAdapters}).
 * @throws SandboxAdapterError when no adapter has that name (or as {@link loadSandboxAdapters}).
 */
export async function sandboxAdapter(name: string, adaptersDir?: string): Promise<SandboxAdapter> {
  const adapters = await loadSandboxAdapters(adaptersDir);
  const found = adapters.find((a) => a.name === name);
  if (found === undefined) throw new SandboxAdapterError(`agentrl: no sandbox adapter '${name}' (found: ${adapters.map((a) => a.name).join(', ')})`);
  return found;
}
