import { MissingPeerDependencyError } from '../errors/dependency-errors.js';

/**
 * True when `err` says that `packageName` itself could not be resolved (ESM `ERR_MODULE_NOT_FOUND` or CJS
 * `MODULE_NOT_FOUND` naming it), not that it was found and then failed while loading (say, a dependency of its own
 * missing, or a native addon that did not build): those stay the package's own error.
 * @internal
 */
export function isModuleNotFound(err: unknown, packageName: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  if (typeof message !== 'string') return false;
  // Node names the missing specifier in quotes at the start: "Cannot find package 'x' imported from …" / "Cannot find module 'x'".
  const named = /^Cannot find (?:package|module) '([^']+)'/.exec(message)?.[1];
  return named === packageName || named?.startsWith(`${packageName}/`) === true;
}

/**
 * Imports the optional peer `packageName` for `feature`.
 * @throws MissingPeerDependencyError when it is not installed, naming `installCommand`; any other load failure as is.
 * @internal
 */
export async function importOptionalPeer<T>(packageName: string, feature: string, installCommand: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isModuleNotFound(err, packageName)) throw new MissingPeerDependencyError({ packageName, feature, installCommand, cause: err });
    throw err;
  }
}
