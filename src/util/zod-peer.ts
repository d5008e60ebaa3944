import { z } from 'zod';
import { ZodVersionError } from '../errors/zod-version-error.js';

/** The `major.minor.patch` of the zod agentrl resolved, when it says (zod 4 exports `z.core.version`). */
function resolvedVersion(): string | undefined {
  const v = (z as unknown as { core?: { version?: { major: number; minor: number; patch: number } } }).core?.version;
  return v ? `${v.major}.${v.minor}.${v.patch}` : undefined;
}

/**
 * Checks that the zod agentrl imports is zod 4 (`z.toJSONSchema` and `z.core.version.major === 4`). With zod as a
 * peer dependency, a project that installed zod 3 (npm warns about the peer, `--legacy-peer-deps` silences it)
 * would otherwise fail deep inside, far from the cause.
 * @throws ZodVersionError naming the zod found.
 * @internal
 */
export function assertZodPeer(): void {
  const version = resolvedVersion();
  if (typeof z.toJSONSchema !== 'function' || version === undefined || !version.startsWith('4.')) {
    throw new ZodVersionError(`zod ${version ?? '3.x or older'}${typeof z.toJSONSchema !== 'function' ? ' (no z.toJSONSchema)' : ''}`, "agentrl's zod import");
  }
}

/**
 * Checks that `schema` is a zod 4 object schema (zod 4 schemas carry `_zod`; zod 3 ones, also those of
 * `zod/v3`, carry only `_def`).
 * @throws ZodVersionError naming `where` and what the value is.
 * @internal
 */
export function assertZod4Object(schema: unknown, where: string): void {
  const s = schema as { _zod?: { def?: { type?: string } }; _def?: unknown } | null;
  if (typeof s !== 'object' || s === null) throw new ZodVersionError(`${s === null ? 'null' : typeof s}, not a zod schema`, where);
  if (s._zod === undefined)
    throw new ZodVersionError(s._def !== undefined ? 'a zod 3 schema (it has _def but no _zod)' : 'an object that is not a zod schema', where);
  if (s._zod.def?.type !== 'object') throw new ZodVersionError(`a zod ${s._zod.def?.type ?? 'unknown'} schema, not z.object({...})`, where);
}
