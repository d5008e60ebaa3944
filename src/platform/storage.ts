import { dirname, join } from './path.browser.js';

/**
 * Where a page keeps the files the library writes and reads (run logs, checkpoints, eval output, model files): the
 * browser build's file system. Paths are POSIX, rooted at `/`. Synchronous because the library reads a checkpoint's
 * `config.json` synchronously; persist by copying {@link RunStorage.files} out (e.g. to IndexedDB) when you need to.
 */
export interface RunStorage {
  /** The bytes of the file at `path`, or `undefined` when there is none. */
  read(path: string): Uint8Array | undefined;
  /** Creates or replaces the file at `path` (its parent folders are created). */
  write(path: string, data: Uint8Array): void;
  /** Whether `path` is a folder (created by {@link RunStorage.mkdir} or holding a file). */
  isDir(path: string): boolean;
  /** Creates the folder `path` and its parents. */
  mkdir(path: string): void;
  /** Names directly inside folder `path`, sorted, each marked as a folder or a file. */
  list(path: string): { name: string; dir: boolean }[];
  /** Deletes the file or folder (with everything under it) at `path`; nothing when absent. */
  remove(path: string): void;
  /** Moves the file or folder at `from` (with everything under it) to `to`, replacing what was there. */
  rename(from: string, to: string): void;
  /** Every file, path → bytes (a snapshot). */
  files(): Map<string, Uint8Array>;
}

const norm = (p: string) => join('/', p);

/**
 * A {@link RunStorage} in memory: lost when the page closes. `initial` pre-loads files (path → bytes or text).
 */
export function memoryStorage(initial: Readonly<Record<string, Uint8Array | string>> = {}): RunStorage {
  const files = new Map<string, Uint8Array>();
  const dirs = new Set<string>(['/']);
  const mkdir = (path: string) => {
    for (let p = norm(path); !dirs.has(p); p = dirname(p)) dirs.add(p);
  };
  const under = (root: string, p: string) => p === root || p.startsWith(root === '/' ? '/' : `${root}/`);
  const storage: RunStorage = {
    read: (path) => files.get(norm(path)),
    write(path, data) {
      const p = norm(path);
      if (dirs.has(p)) throw new Error(`EISDIR: ${p} is a folder`);
      mkdir(dirname(p));
      files.set(p, data);
    },
    isDir: (path) => dirs.has(norm(path)),
    mkdir,
    list(path) {
      const root = norm(path);
      const names = new Map<string, boolean>();
      const prefix = root === '/' ? '/' : `${root}/`;
      for (const p of [...files.keys(), ...dirs]) {
        if (!p.startsWith(prefix) || p === root) continue;
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf('/');
        const name = slash < 0 ? rest : rest.slice(0, slash);
        names.set(name, (names.get(name) ?? false) || slash >= 0 || dirs.has(prefix + name));
      }
      return [...names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, dir]) => ({ name, dir }));
    },
    remove(path) {
      const root = norm(path);
      for (const p of [...files.keys()]) if (under(root, p)) files.delete(p);
      for (const p of [...dirs]) if (under(root, p) && p !== '/') dirs.delete(p);
    },
    rename(from, to) {
      const a = norm(from);
      const b = norm(to);
      storage.remove(b);
      mkdir(dirname(b));
      for (const [p, data] of [...files])
        if (under(a, p)) {
          files.delete(p);
          files.set(b + p.slice(a.length), data);
        }
      for (const p of [...dirs])
        if (under(a, p)) {
          dirs.delete(p);
          dirs.add(b + p.slice(a.length));
        }
    },
    files: () => new Map(files),
  };
  for (const [path, data] of Object.entries(initial)) storage.write(path, typeof data === 'string' ? new TextEncoder().encode(data) : data);
  return storage;
}
