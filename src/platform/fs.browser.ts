import type * as NodeFs from './fs.js';
import { memoryStorage, type RunStorage } from './storage.js';

/**
 * The browser build's stand-in for `./fs.js`: the same function names over the current {@link RunStorage} (in memory
 * unless a page calls {@link useStorage}). Missing files fail with `code: 'ENOENT'` as in Node, so callers' error
 * handling is unchanged.
 */

let current: RunStorage = memoryStorage();

/** Makes `storage` the file system of every later read and write; returns the previous one. */
export function useStorage(storage: RunStorage): RunStorage {
  const previous = current;
  current = storage;
  return previous;
}

/** The storage reads and writes go to now. */
export function currentStorage(): RunStorage {
  return current;
}

const text = new TextDecoder();
const encode = (data: string | Uint8Array) => (typeof data === 'string' ? new TextEncoder().encode(data) : data);

function missing(op: string, path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${op} '${path}'`), { code: 'ENOENT', path });
}

function readSync(path: string, encoding?: unknown): string | Uint8Array {
  const data = current.read(path);
  if (data === undefined) throw missing('open', path);
  const enc = typeof encoding === 'string' ? encoding : (encoding as { encoding?: string } | undefined)?.encoding;
  return enc === undefined ? data : text.decode(data);
}

/** Like `fs.readFileSync`: bytes, or text when an encoding is given. */
export function readFileSync(path: string, encoding?: unknown): never {
  return readSync(path, encoding) as never;
}

/** Like `fs.existsSync`. */
export function existsSync(path: string): boolean {
  return current.read(path) !== undefined || current.isDir(path);
}

/** Like `fs.promises.readFile`. */
export async function readFile(path: string, encoding?: unknown): Promise<never> {
  return readSync(path, encoding) as never;
}

/** Like `fs.promises.writeFile` (text as UTF-8). */
export async function writeFile(path: string, data: string | Uint8Array): Promise<void> {
  current.write(path, encode(data));
}

/** Like `fs.promises.appendFile` (text as UTF-8). */
export async function appendFile(path: string, data: string | Uint8Array): Promise<void> {
  const before = current.read(path) ?? new Uint8Array(0);
  const add = encode(data);
  const joined = new Uint8Array(before.length + add.length);
  joined.set(before);
  joined.set(add, before.length);
  current.write(path, joined);
}

/** Like `fs.promises.mkdir` (always recursive). */
export async function mkdir(path: string, _options?: unknown): Promise<undefined> {
  current.mkdir(path);
  return undefined;
}

/** Like `fs.promises.readdir`: names, or entries with `isDirectory()`/`isFile()` when `withFileTypes` is set. */
export async function readdir(path: string, options?: { withFileTypes?: boolean }): Promise<never> {
  if (!current.isDir(path)) throw missing('scandir', path);
  const entries = current.list(path);
  if (options?.withFileTypes !== true) return entries.map((e) => e.name) as never;
  return entries.map((e) => ({ name: e.name, isDirectory: () => e.dir, isFile: () => !e.dir })) as never;
}

/** Like `fs.promises.rename`. */
export async function rename(from: string, to: string): Promise<void> {
  if (!existsSync(from)) throw missing('rename', from);
  current.rename(from, to);
}

/** Like `fs.promises.rm`; a missing path fails unless `force` is set. */
export async function rm(path: string, options?: { force?: boolean }): Promise<void> {
  if (!existsSync(path) && options?.force !== true) throw missing('rm', path);
  current.remove(path);
}

/** Like `fs.promises.access` (existence only). */
export async function access(path: string): Promise<void> {
  if (!existsSync(path)) throw missing('access', path);
}

/** Like `fs.promises.open` for reading: the handle's `sync()` and `close()` do nothing (memory needs no flush). */
export async function open(path: string, _flags?: string): Promise<never> {
  if (!existsSync(path)) throw missing('open', path);
  return { sync: async () => undefined, close: async () => undefined } as never;
}

// Compile-time check: this module offers every name the Node module does.
const _sameNames: Record<keyof typeof NodeFs, unknown> = {
  access,
  appendFile,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
  existsSync,
  readFileSync,
};
void _sameNames;
